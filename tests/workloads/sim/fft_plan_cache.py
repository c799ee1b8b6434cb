# torch.backends.cuda.cufft_plan_cache (#14): one LRU cache of cuFFT plans
# per device, 4096 plans at most by default, a plan per distinct transform
# (type, dtype, sizes, batch, layout); max_size 0 caches nothing, a smaller
# max_size evicts the least recently used plans. PyTorch's API and messages
# (torch/backends/cuda/__init__.py, CuFFTPlanCache.h); a CPU transform uses
# no plan cache. Also: a transform of a tensor that requires grad names
# the op (no complex autograd yet).
import torch

cache = torch.backends.cuda.cufft_plan_cache
print("default", cache.size, cache.max_size, cache[0].max_size, cache[1].size)
x = torch.randn(8, 16, device="cuda")
torch.fft.fft(x)
torch.fft.fft(x)
print("same transform twice", cache.size)
torch.fft.rfft(x)
torch.fft.fft(x.double())
torch.fft.fft(torch.randn(4, 16, device="cuda"))
torch.fft.fft(x.t())
print("four more shapes", cache.size, cache[0].size, cache[1].size)
torch.fft.fft(torch.randn(16, device="cuda:1"))
print("device 1", cache[0].size, cache[1].size)
torch.fft.fft(torch.randn(8, 16))
print("cpu", cache[0].size)
cache.max_size = 2
print("shrunk", cache.size, cache.max_size)
torch.fft.fft(x)
torch.fft.rfft(x)
print("refilled", cache.size)
cache[0].clear()
print("cleared", cache.size, cache.max_size, cache[1].size)
cache.max_size = 0
torch.fft.fft(x)
print("max_size 0", cache.size)
with torch.cuda.device(1):
    print("current device 1", cache.size, cache.max_size)
for bad in (lambda: setattr(cache, "max_size", -1), lambda: setattr(cache[0], "size", 3), lambda: cache[7]):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError", e)
cache.max_size = 4096

w = torch.randn(8, device="cuda", requires_grad=True)
try:
    torch.fft.rfft(w)
except NotImplementedError as e:
    print("NotImplementedError", str(e).split(" with")[0])
with torch.no_grad():
    print("no_grad", torch.fft.rfft(w).shape, cache.size)
