# CUBLAS_WORKSPACE_CONFIG=:4096:2 (cublas_workspace_config.env), the
# setting PyTorch's reproducibility notes give for deterministic cuBLAS:
# every ":SIZE:COUNT" adds SIZE KiB COUNT times, so each (handle, stream)
# pair's workspace is 8 MiB instead of sm_90's default 32 MiB. The
# cuBLASLt workspace keeps its 1 MiB (CUBLASLT_WORKSPACE_SIZE, unset).
import torch
import torch.nn as nn

print(torch.cuda.get_device_capability())
model = nn.Linear(256, 256).cuda()
x = torch.randn(32, 256, device="cuda")
before = torch.cuda.memory_allocated()
y = model(x)
print("forward:", torch.cuda.memory_allocated() - before - y.numel() * 4)
before = torch.cuda.memory_allocated()
y.sum().backward()
print("backward's engine thread:", torch.cuda.memory_allocated() - before
      - sum(p.grad.numel() * 4 for p in model.parameters()))
# W, b, x, y, W.grad, b.grad and the three workspaces
print(torch.cuda.memory_stats()["allocation.all.current"])
