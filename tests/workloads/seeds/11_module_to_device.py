# Seed example 11 (adapted from PyTorch's CUDA semantics notes).
# Moving a module's parameters to a GPU, then splitting a batch over three
# GPUs with DataParallel.
# What it must print is in 11_module_to_device.expected.
import os
import torch

device = torch.device("cpu")
if torch.cuda.is_available():
    device = torch.device("cuda")
a = torch.tensor([1, 2, 3], device=device)
print(a)

class LinearRegression(torch.nn.Module):
    def __init__(self):
        super(LinearRegression, self).__init__()
        self.linear = torch.nn.Linear(1, 1)

    def forward(self, x):
        return self.linear(x)

regression = LinearRegression().to(device=device)
for param in regression.parameters():
    print(param)

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")
model = LinearRegression()
if torch.cuda.device_count() > 1:
    model = torch.nn.DataParallel(model, device_ids=[0, 1, 2])
model.to(device)
out = model(torch.randn(30, 1, device=device))
print(out.shape, out.device)
