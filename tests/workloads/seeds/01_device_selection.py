# Seed example 01 (adapted from PyTorch's CUDA semantics notes).
# Tensors live where they were made; inside `with torch.cuda.device(1)` new CUDA
# tensors land on GPU 1 unless a device is named. Needs two GPUs.
# What it must print is in 01_device_selection.expected.
import torch
cuda = torch.device('cuda')     # default CUDA device
cuda0 = torch.device('cuda:0')
cuda1 = torch.device('cuda:1')  # GPU 1 (these are 0-indexed)

x = torch.tensor([1., 2.], device=cuda0)
# x.device is device(type='cuda', index=0)
y = torch.tensor([1., 2.]).cuda()
# y.device is device(type='cuda', index=0)

with torch.cuda.device(1):
    # allocates a tensor on GPU 1
    a = torch.tensor([1., 2.], device=cuda)

    # transfers a tensor from CPU to GPU 1
    b = torch.tensor([1., 2.]).cuda()
    # a.device and b.device are device(type='cuda', index=1)

    # You can also use ``Tensor.to`` to transfer a tensor:
    b2 = torch.tensor([1., 2.]).to(device=cuda)
    # b.device and b2.device are device(type='cuda', index=1)

    c = a + b
    # c.device is device(type='cuda', index=1)
    print("c.device is: ", c.device)
    z = x + y
    # z.device is device(type='cuda', index=0)
    print("z.device is: ", z.device)

    # even within a context, you can specify the device
    # (or give a GPU index to the .cuda call)
    d = torch.randn(2, device=cuda0)
    e = torch.randn(2).to(cuda0)
    f = torch.randn(2).cuda(cuda0)
    print("d.device is :", d.device)
    # d.device, e.device, and f.device are all device(type='cuda', index=0)
