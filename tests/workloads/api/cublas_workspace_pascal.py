# On a GPU other than compute capability 9.0 (the GTX 1080 Ti profile, 6.1:
# cublas_workspace_pascal.args) PyTorch's default CUBLAS_WORKSPACE_CONFIG
# is ":4096:2:16:8", 8519680 bytes a (handle, stream) pair. Under 10 MiB,
# a large-pool request gets a 20 MiB segment (kLargeBuffer), whose rest
# later blocks may use: 20 MiB reserved besides the small pool's 2 MiB.
import torch

print(torch.cuda.get_device_name(), torch.cuda.get_device_capability())
a = torch.randn(4, 4, device="cuda")
b = a @ a
print(torch.cuda.memory_allocated() - 2 * 512, torch.cuda.memory_reserved() - 2 * 1024 * 1024)
