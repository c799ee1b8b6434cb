# parameters_to_vector / vector_to_parameters against PyTorch 1.13.
import torch
import torch.nn as nn

torch.manual_seed(0)
m = nn.Sequential(nn.Linear(3, 2), nn.Linear(2, 1))
v = nn.utils.parameters_to_vector(m.parameters())
print(v.shape, [round(x, 4) for x in v.tolist()])
nn.utils.vector_to_parameters(torch.arange(v.numel(), dtype=torch.float32), m.parameters())
print([p.tolist() for p in m.parameters()])
for bad in (lambda: nn.utils.parameters_to_vector(torch.ones(2)), lambda: nn.utils.vector_to_parameters([1.0], m.parameters())):
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)
# p.data = t shares t's memory
p = nn.Parameter(torch.zeros(2))
t = torch.ones(2)
p.data = t
t.add_(1)
print(p.tolist(), p.requires_grad, type(p).__name__)
