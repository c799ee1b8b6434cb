# torch.gradient (#14): uniform spacing, per-dim spacings, coordinate
# tensors, edge_order 1 and 2, integer input, and the errors. The expected
# output is what Debian's python3-torch 1.13 prints for this script.
import torch
f = torch.tensor([1.0, 2.0, 4.0, 7.0, 11.0, 16.0])
print(torch.gradient(f), torch.gradient(f, spacing=2.0), torch.gradient(f, edge_order=2))
x = torch.tensor([0.0, 1.0, 1.5, 3.5, 4.0, 6.0])
print(torch.gradient(f, spacing=(x,)), torch.gradient(f, spacing=(x,), edge_order=2))
m = torch.arange(12.).reshape(3, 4) ** 2
print(torch.gradient(m), torch.gradient(m, dim=1, spacing=0.5), torch.gradient(m, spacing=[2.0, 3.0]))
print(torch.gradient(torch.tensor([1, 4, 9, 16])))
for bad in (lambda: torch.gradient(f, edge_order=3), lambda: torch.gradient(torch.ones(2), edge_order=2),
            lambda: torch.gradient(m, spacing=[1.0, 2.0, 3.0])):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
