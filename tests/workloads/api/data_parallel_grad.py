# DataParallel backward: replicate, scatter, parallel apply, gather, and the
# gradients summed into the module's own parameters on device_ids[0], equal
# to the same step on one device. The oracle has no CUDA, so this prints
# comparisons only; nn_cuda checks the forward.
import torch
import torch.nn as nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
ref = nn.Sequential(nn.Linear(5, 7), nn.ReLU(), nn.Linear(7, 3))
ref.load_state_dict(net.state_dict())
x = torch.randn(10, 5)
y = torch.randn(10, 3)

net.cuda()
dp = nn.DataParallel(net)
out = dp(x.cuda())
loss = ((out - y.cuda()) ** 2).mean()
loss.backward()

ref_loss = ((ref(x) - y) ** 2).mean()
ref_loss.backward()

print("out", out.shape, out.device, out.grad_fn.name())
print("loss equal", abs(loss.item() - ref_loss.item()) < 1e-6)
for (name, p), q in zip(net.named_parameters(), ref.parameters()):
    print(name, p.device, p.grad is not None and p.grad.device,
          p.grad is not None and torch.allclose(p.grad.cpu(), q.grad, atol=1e-6))
print("x leaf on device 0 gets no grad", x.grad)

# Several inputs and keyword arguments are scattered alike; non-tensors are
# given to every replica.
class Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 2)

    def forward(self, a, b, scale=1.0, bias=None):
        return {"sum": self.lin(a + b) * scale + (0 if bias is None else bias)}


torch.manual_seed(1)
two = Two().cuda()
a = torch.randn(8, 4, device="cuda", requires_grad=True)
b = torch.randn(8, 4, device="cuda")
res = nn.DataParallel(two)(a, b, scale=2.0, bias=torch.ones(8, 2, device="cuda"))
print("dict out", sorted(res), res["sum"].shape, res["sum"].device)
res["sum"].sum().backward()
print("input grad", a.grad.shape, a.grad.device, torch.allclose(a.grad, (two.lin.weight.sum(0) * 2).expand(8, 4)))
print("weight grad", two.lin.weight.grad.device,
      torch.allclose(two.lin.weight.grad, 2 * (a + b).detach().sum(0).expand(2, 4)))

# Tied weights stay tied in every replica (one copy per device, as
# replicate() indexes the module's parameters) and get the gradient of
# the same step on one device.
class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4, bias=False)
        self.b = nn.Linear(4, 4, bias=False)
        self.b.weight = self.a.weight
        self.tied = []

    def forward(self, x):
        self.tied.append(self.a.weight is self.b.weight)
        return self.b(self.a(x))


torch.manual_seed(2)
tied = Tied()
ref = Tied()
ref.load_state_dict(tied.state_dict())
x = torch.randn(8, 4)
tied.cuda()
nn.DataParallel(tied)(x.cuda()).pow(2).sum().backward()
ref(x).pow(2).sum().backward()
print("tied in every replica", all(tied.tied), len(list(tied.parameters())))
print("tied grad", torch.allclose(tied.a.weight.grad.cpu(), ref.a.weight.grad, atol=1e-5))
