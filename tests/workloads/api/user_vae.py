# A user's script end to end, on CPU tensors (#16): its printed losses and
# values equal Debian's python3-torch 1.13 output for the same script.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(64, 32), nn.ReLU())
        self.mu = nn.Linear(32, 8); self.logvar = nn.Linear(32, 8)
        self.dec = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 64))
    def forward(self, x):
        h = self.enc(x); mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.dec(z), mu, logvar
dev = "cpu"
m = VAE().to(dev)
opt = torch.optim.Adam(m.parameters(), lr=1e-3)
x = torch.rand(16, 64, device=dev)
for step in range(5):
    recon, mu, logvar = m(x)
    bce = F.binary_cross_entropy_with_logits(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    loss = (bce + kld) / x.size(0)
    opt.zero_grad(); loss.backward(); opt.step()
    print(step, round(loss.item(), 3))
with torch.no_grad():
    samples = torch.sigmoid(m.dec(torch.randn(4, 8, device=dev)))
print(samples.shape, bool(((samples >= 0) & (samples <= 1)).all()))
print("OK")
