# A user's script end to end, on CPU tensors (#16): its printed losses and
# values equal Debian's python3-torch 1.13 output for the same script.
import torch, torch.nn as nn
from torch.distributions import Categorical
torch.manual_seed(0)
policy = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
for ep in range(3):
    logps, rewards = [], []
    s = torch.randn(4)
    for t in range(10):
        dist = Categorical(logits=policy(s))
        a = dist.sample()
        logps.append(dist.log_prob(a))
        rewards.append(1.0 if a.item() == 1 else 0.0)
        s = torch.randn(4)
    returns = torch.tensor([sum(rewards[i:]) * 0.99 ** 0 for i in range(len(rewards))])
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = -(torch.stack(logps) * returns).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(ep, sum(rewards), round(loss.item(), 4))
print("OK")
