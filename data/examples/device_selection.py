# Which device does a tensor live on?
#
# A tensor is created on one device and stays there. Inside
# `with torch.cuda.device(1):` the bare 'cuda' device means GPU 1, so new
# tensors land there, while an explicit index ('cuda:0') always wins.
# Operations run on the device of their operands. Run with 2 GPUs or more;
# the three printed lines should read:
#   c.device is:  cuda:1
#   z.device is:  cuda:0
#   d.device is : cuda:0
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
