# On the CPU, gather and embedding lookups check their indices at once.
import torch
scores = torch.arange(6.0).view(2, 3)
picks = torch.tensor([[2, 0], [1, 1]])
print(torch.gather(scores, 1, picks))
try:
    torch.gather(torch.arange(3.0), 0, torch.tensor([0, 5]))
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    scores.gather(1, torch.tensor([[0, 3], [1, 2]]))
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    scores.gather(0, torch.tensor([[0, 1, 1, 0]]))
except RuntimeError as err:
    print("RuntimeError:", err)
try:
    scores.gather(1, torch.tensor([[0, 1]], dtype=torch.int32))
except RuntimeError as err:
    print("RuntimeError:", err)
table = torch.arange(8.0).view(4, 2)
print(torch.nn.functional.embedding(torch.tensor([[0, 3]]), table))
try:
    torch.nn.functional.embedding(torch.tensor([[0, 4]]), table)
except IndexError as err:
    print("IndexError:", err)
try:
    torch.nn.Embedding(4, 2)(torch.tensor([-1]))
except IndexError as err:
    print("IndexError:", err)
try:
    torch.nn.functional.embedding(torch.tensor([0.0, 1.0]), table)
except RuntimeError as err:
    print("RuntimeError:", err)
print(torch.nn.Embedding(4, 2))
