# A user's CNN training script end to end (#16): Conv-BN-ReLU, grouped conv
# with GroupNorm and SiLU, Dropout2d, AdaptiveAvgPool2d, kaiming init by
# apply(), a shuffled DataLoader with a seeded generator, AdamW,
# OneCycleLR, label smoothing, gradient clipping, eval accuracy, and a
# checkpoint of model, optimizer and scheduler through torch.save/load.
# The expected output is what Debian's python3-torch 1.13 prints.
import io, torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader
torch.manual_seed(0)
dev = "cpu"
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.MaxPool2d(2), nn.Dropout2d(0.1),
            nn.Conv2d(8, 16, 3, padding=1, groups=2), nn.GroupNorm(4, 16), nn.SiLU(),
            nn.AdaptiveAvgPool2d((2, 2)))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(64, 32), nn.GELU(), nn.Dropout(0.2), nn.Linear(32, 5))
    def forward(self, x):
        return self.head(self.features(x))
model = Net().to(dev)
model.apply(lambda m: nn.init.kaiming_normal_(m.weight, nonlinearity="relu") if isinstance(m, nn.Conv2d) else None)
X = torch.randn(40, 3, 8, 8); Y = torch.randint(0, 5, (40,))
dl = DataLoader(TensorDataset(X, Y), batch_size=8, shuffle=True, generator=torch.Generator().manual_seed(3))
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=10)
crit = nn.CrossEntropyLoss(label_smoothing=0.05)
step = 0
for epoch in range(2):
    model.train()
    for xb, yb in dl:
        if step >= 10: break
        logits = model(xb.to(dev))
        loss = crit(logits, yb.to(dev))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 2.0)
        opt.step(); sched.step(); step += 1
    print(epoch, round(loss.item(), 4), round(sched.get_last_lr()[0], 6))
model.eval()
with torch.no_grad():
    acc = (model(X).argmax(1) == Y).float().mean().item()
print("acc", round(acc, 4))
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict()}, buf)
buf.seek(0)
ck = torch.load(buf)
m2 = Net(); m2.load_state_dict(ck["model"]); m2.eval()
with torch.no_grad():
    print(torch.allclose(m2(X), model(X)), sorted(ck["opt"]["state"][0].keys()), ck["sched"]["last_epoch"])
print(model.features[1].running_mean[:3], model.features[1].num_batches_tracked)
