# A bad PYTORCH_CUDA_ALLOC_CONF (see bad_alloc_conf.env) fails the first CUDA
# call, as PyTorch's lazy initialization does; CPU work is unaffected.
import torch

print(torch.ones(2).sum().item())
try:
    torch.ones(2, device='cuda')
except Exception as err:
    print(type(err).__name__ + ":", err)
