# A user's script end to end, on CPU tensors (#16): its printed losses and
# values equal Debian's python3-torch 1.13 output for the same script.
import torch, torch.nn as nn
torch.manual_seed(0)
dev = "cpu"
G = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 2)).to(dev)
D = nn.Sequential(nn.utils.spectral_norm(nn.Linear(2, 32)), nn.LeakyReLU(0.2), nn.Linear(32, 1)).to(dev)
oG = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
oD = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
crit = nn.BCEWithLogitsLoss()
real = torch.randn(32, 2, device=dev) * 0.5 + 2
for it in range(3):
    z = torch.randn(32, 16, device=dev)
    fake = G(z)
    lossD = crit(D(real), torch.ones(32, 1, device=dev)) + crit(D(fake.detach()), torch.zeros(32, 1, device=dev))
    oD.zero_grad(); lossD.backward(); oD.step()
    lossG = crit(D(fake), torch.ones(32, 1, device=dev))
    oG.zero_grad(); lossG.backward(); oG.step()
    print(it, round(lossD.item(), 4), round(lossG.item(), 4))
ema = [p.detach().clone() for p in G.parameters()]
with torch.no_grad():
    for e, p in zip(ema, G.parameters()):
        e.lerp_(p, 0.01)
    torch._foreach_mul_(ema, 0.5)
print(len(ema), ema[0].shape)
print("OK")
