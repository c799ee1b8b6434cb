# End to end: a pre-norm transformer block (MultiheadAttention + LayerNorm +
# MLP) trained 3 steps with AdamW on the GPU; the losses are PyTorch 1.13's
# and decrease.
import torch
import torch.nn as nn
import torch.nn.functional as F

DEV = "cuda" if torch.cuda.is_available() else "cpu"


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        self.head = nn.Linear(d, 5)

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        x = x + self.mlp(self.ln2(x))
        return self.head(x)


torch.manual_seed(0)
model = Block(16, 4)
x = torch.randn(4, 6, 16)
y = (torch.rand(4, 6) * 5).to(torch.int64)  # torch.randint is not modeled
model = model.to(DEV)
x, y = x.to(DEV), y.to(DEV)
mask = torch.ones(6, 6, dtype=torch.bool, device=DEV).triu(1)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
losses = []
for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x, mask).reshape(-1, 5), y.reshape(-1))
    loss.backward()
    opt.step()
    losses.append(loss.item())
    print("step", step, round(loss.item(), 4))
print("decreasing", losses[0] > losses[1] > losses[2])
print("attn.in_proj_weight", [round(v, 4) + 0.0 for v in model.attn.in_proj_weight[0, :6].tolist()])
