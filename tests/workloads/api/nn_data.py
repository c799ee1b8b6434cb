# nn.Module, Parameter, Linear, DataParallel and DataLoader(pin_memory=True).
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
print(lin)
print([tuple(p.shape) for p in lin.parameters()], [n for n, _ in lin.named_parameters()])
print(isinstance(lin.weight, torch.nn.Parameter), isinstance(lin.weight, torch.Tensor), lin.weight.requires_grad)
model = torch.nn.Sequential(lin, torch.nn.ReLU())
print(len(list(model.children())), len(list(model.modules())))
model.cuda(1)
print({p.device for p in model.parameters()})
model.to("cpu")
print({p.device for p in model.parameters()})
dp = torch.nn.DataParallel(model.to("cuda:0"), device_ids=[0, 1])
out = dp(torch.ones(8, 3, device="cuda:0"))
print(out.shape, out.device, out.min().item() >= 0)
ds = TensorDataset(torch.arange(10.0).reshape(5, 2), torch.arange(5))
loader = DataLoader(ds, batch_size=2, pin_memory=True)
for xb, yb in loader:
    print(xb.is_pinned(), yb.is_pinned(), xb.tolist(), yb.tolist())
p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
print(p)
