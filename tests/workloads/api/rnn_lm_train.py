# End to end: an LSTM language-model step (Embedding -> LSTM -> Linear ->
# CrossEntropy) on the GPU, three SGD steps; losses and gradients are
# PyTorch 1.13's.
import torch
import torch.nn as nn

DEV = "cuda" if torch.cuda.is_available() else "cpu"


class LM(nn.Module):
    def __init__(self, vocab, d, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=2, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, tokens, state=None):
        h, state = self.lstm(self.embed(tokens), state)
        return self.out(h), state


torch.manual_seed(0)
model = LM(11, 8, 12)
print(model)
tokens = (torch.rand(3, 7) * 11).to(torch.int64)  # torch.randint is not modeled
model = model.to(DEV)
tokens = tokens.to(DEV)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
loss_fn = nn.CrossEntropyLoss()
for step in range(3):
    opt.zero_grad()
    logits, (h, c) = model(tokens[:, :-1])
    loss = loss_fn(logits.reshape(-1, 11), tokens[:, 1:].reshape(-1))
    loss.backward()
    if step == 0:
        for name, p in model.named_parameters():
            print("  d" + name, list(p.shape), round(p.grad.abs().sum().item(), 4))
    opt.step()
    print("step", step, round(loss.item(), 4), list(h.shape), list(c.shape))
