# The factories' default device: `with torch.device(...)` and
# torch.set_default_device, per thread. Python 1.13 has neither, so the
# expected output is written from PyTorch 2's documentation: factories
# without a device (empty, zeros, ones, full, rand, randn, arange, tensor)
# make their tensor there, an explicit device wins, *_like and new_* follow
# their input, the block's end restores the previous default, and
# get_default_device names the current CUDA device for "cuda".
import threading

import torch

print(torch.get_default_device())
with torch.device("cuda:1"):
    print([t.device for t in (torch.empty(2), torch.zeros(2), torch.ones(2), torch.full((2,), 3.0),
                              torch.rand(2), torch.randn(2), torch.arange(3), torch.tensor([1.0]))])
    print(torch.get_default_device(), torch.ones(1, device="cpu").device)
    c = torch.ones(2, device="cpu")
    print(torch.zeros_like(c).device, c.new_zeros(3).device, torch.tensor(c).device)
    with torch.device("cpu"):
        print("nested", torch.ones(1).device)
    print("after nested", torch.ones(1).device)
    seen = []
    t = threading.Thread(target=lambda: seen.append(torch.ones(1).device))
    t.start()
    t.join()
    print("another thread", seen)
print("after the block", torch.ones(1).device)

torch.set_default_device("cuda")
print(torch.get_default_device(), torch.ones(1).device)
torch.cuda.set_device(2)
print(torch.get_default_device(), torch.ones(1).device)
torch.cuda.set_device(0)
with torch.device("cuda:3"):
    print(torch.ones(1).device)
print(torch.ones(1).device)
torch.set_default_device(None)
print(torch.get_default_device(), torch.ones(1).device)
with torch.device("cuda", 2) as d:
    print(d, torch.arange(2.0).device)

# set_default_tensor_type, deprecated since PyTorch 2.1 (its warning goes
# to stderr): the dtype of the type, and CUDA for a torch.cuda type. The
# errors are PyTorch 1.13's.
torch.set_default_tensor_type(torch.cuda.DoubleTensor)
print(torch.get_default_dtype(), torch.ones(1).device, torch.ones(1).dtype, torch.tensor([1.5]).dtype)
torch.set_default_tensor_type("torch.FloatTensor")
print(torch.get_default_dtype(), torch.ones(1).device, torch.ones(1).dtype)
for bad in (torch.LongTensor, 3, torch.float64):
    try:
        torch.set_default_tensor_type(bad)
    except TypeError as err:
        print("TypeError:", err)
