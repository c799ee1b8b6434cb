# uint8 masks still index, with PyTorch 1.13's deprecation warnings (the
# expected output and warnings are its own on the same inputs).
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
t = torch.arange(4., device=dev)
m = torch.tensor([1, 0, 1, 0], dtype=torch.uint8, device=dev)
print(t[m].tolist())
t[m] = 5
print(t.tolist())
print(t.masked_fill(m, 2).tolist())
