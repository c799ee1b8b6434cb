# softmax and log_softmax gradients (#15), over the last dim and an inner
# one, with a weighted upstream gradient. The expected output is what
# Debian's python3-torch 1.13 prints for this script
# (`python3 softmax_grad.py`) on the same inputs.
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0], [-2.0, 0.75, 1.0, 0.1]]
w = torch.tensor([[1.0, 2.0, -1.0, 0.5], [0.0, 1.0, 3.0, -2.0], [0.5, 0.5, 0.5, 0.5]], device=dev)


def show(t):
    print([[round(v, 5) + 0.0 for v in row] for row in t.tolist()])


for fn in (torch.softmax, torch.log_softmax):
    for dim in (1, 0, -1):
        x = torch.tensor(base, device=dev, requires_grad=True)
        y = fn(x, dim)
        print(fn.__name__, dim, y.grad_fn.name())
        (y * w).sum().backward()
        show(x.grad)

# through the module form and a loss, as a training script has it
x = torch.tensor(base, device=dev, requires_grad=True)
loss = -torch.log_softmax(x, 1)[:, 0].sum()
loss.backward()
show(x.grad)
