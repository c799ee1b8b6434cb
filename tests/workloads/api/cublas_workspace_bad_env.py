# Settings PyTorch cannot read (cublas_workspace_bad_env.env) warn and keep
# the defaults, with PyTorch's words, at the first GEMM that reads them:
# "4096:8" has no ":SIZE:COUNT" (the leading colon is missing), "lots" is
# no number for std::stoi, and a boolean flag takes only 0 or 1.
import torch
import torch.nn.functional as F

x = torch.randn(8, 8, device="cuda")
y = F.linear(x, x, x[0])
print("workspaces:", torch.cuda.memory_allocated() - 2 * 512)  # x and y
