# After a device fault every later CUDA call fails too, as on a GPU.
import torch
table = torch.zeros(4, 2, device="cuda")
ids = torch.tensor([-1], device="cuda")
rows = table.index_select(0, ids)
try:
    torch.cuda.synchronize()
except RuntimeError as err:
    print("first:", str(err).splitlines()[0])
try:
    x = torch.ones(3, device="cuda") + 1
    print(x.sum().item())
except RuntimeError as err:
    print("later:", str(err).splitlines()[0])
try:
    torch.cuda.synchronize()
except RuntimeError as err:
    print("sync:", str(err).splitlines()[0])
print("cpu still works:", torch.ones(2).sum().item())
