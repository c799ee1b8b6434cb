# Moving a model to the GPU, and DataParallel.
#
# module.to(device) moves every parameter; each one printed should be on
# cuda:0 and require grad. With more than one GPU, DataParallel splits
# the batch of 30 across devices 0-2 and gathers the result on cuda:0:
# look for the replicated kernels on the other devices' rows.
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
