# Writing code that runs with or without a GPU.
#
# Pick the device once (here from command-line style arguments), then use
# new_* and *_like so new tensors follow an existing tensor's device and
# dtype. Expected output:
#   cpu
#   tensor([[0.3000, 0.3000],
#           [0.3000, 0.3000],
#           [0.3000, 0.3000]])
#   tensor([[-5., -5.],
#           [-5., -5.],
#           [-5., -5.]], device='cuda:0')
#   tensor([[1, 2, 3]])
#   Outside device is 0
#   Inside device is 1
#   Outside device is still 0
# (Very old PyTorch releases padded numbers with a space, "[[ 0.3000,";
# current ones print them as shown.)
import argparse
import torch

parser = argparse.ArgumentParser(description='PyTorch Example')
parser.add_argument('--disable-cuda', action='store_true', help='Disable CUDA')
args = parser.parse_args(['--disable-cuda'])
args.device = None
if not args.disable_cuda and torch.cuda.is_available():
    args.device = torch.device('cuda')
else:
    args.device = torch.device('cpu')

x = torch.empty((8, 42), device=args.device)
print(x.device)

cuda = torch.device('cuda')
x_cpu = torch.empty(2)
x_gpu = torch.empty(2, device=cuda)
x_cpu_long = torch.empty(2, dtype=torch.int64)

y_cpu = x_cpu.new_full([3, 2], fill_value=0.3)
print(y_cpu)
y_gpu = x_gpu.new_full([3, 2], fill_value=-5)
print(y_gpu)
y_cpu_long = x_cpu_long.new_tensor([[1, 2, 3]])
print(y_cpu_long)

x_cpu = torch.empty(2, 3)
x_gpu = torch.empty(2, 3)
y_cpu = torch.ones_like(x_cpu)
y_gpu = torch.zeros_like(x_gpu)

print("Outside device is 0")  # On device 0 (default in most scenarios)
with torch.cuda.device(1):
    print("Inside device is 1")  # On device 1
print("Outside device is still 0")  # On device 0
