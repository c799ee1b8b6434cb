# Used by test-cli-run: initializes CUDA and prints the device count.
import torch
x = torch.ones(2, device="cuda")
print(torch.cuda.device_count())
