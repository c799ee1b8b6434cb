# Tensor.float(), .double(), ... and type_as hand back the tensor itself
# when it already has the dtype, as PyTorch's (an `is` check, and the same
# object's version and grad). The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
f = torch.ones(2, device=dev)
d = torch.ones(2, device=dev, dtype=torch.float64)
print(f.float() is f, f.double() is f, d.double() is d, d.float() is d)
print(f.type_as(f) is f, f.type_as(d) is f, f.to(torch.float32) is f)
w = torch.ones(3, device=dev, requires_grad=True)
print(w.float() is w, w.float().is_leaf, w.double().is_leaf, w.double().grad_fn.name())
