# Moving tensors between host and device.
#
# to() and cuda() return a copy on the target device; copy_() writes into
# an existing tensor, whatever device the source is on. Expected output:
#   cpu
#   cuda:0
#   cuda:0
#   cpu
#   tensor([[1., 4., 7.],
#           [3., 6., 9.],
#           [2., 5., 8.]])
#   cuda:0
# then a 3x4 tensor of uniform random numbers and a 2x5 tensor of zeros,
# both on cuda:0.
import torch
cpu_tensor = torch.Tensor([[1, 4, 7], [3, 6, 9], [2, 5, 8]])
print(cpu_tensor.device)
gpu_tensor1 = cpu_tensor.to(torch.device("cuda:0"))
print(gpu_tensor1.device)
gpu_tensor2 = cpu_tensor.cuda(torch.device("cuda:0"))
print(gpu_tensor2.device)
gpu_tensor3 = cpu_tensor.copy_(gpu_tensor2)
print(gpu_tensor3.device)
print(gpu_tensor3)

gpu_tensor1 = torch.tensor([[2, 5, 8], [1, 4, 7], [3, 6, 9]], device=torch.device("cuda:0"))
print(gpu_tensor1.device)
print(torch.rand((3, 4), device=torch.device("cuda:0")))
print(torch.zeros((2, 5), device=torch.device("cuda:0")))
