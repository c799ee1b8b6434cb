# sort, topk and kthvalue gradients (#15): each value's gradient goes
# back to where it came from. The expected output is what Debian's
# python3-torch 1.13 prints for this script (`python3 sort_grad.py`).
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"
base = [[0.5, -1.0, 2.0, 0.25], [1.5, 0.0, -0.5, 3.0], [-2.0, 0.75, 1.0, 0.1]]

cases = [
    ("sort", lambda x: torch.sort(x, 1)[0]),
    ("sort 0 descending", lambda x: x.sort(0, descending=True)[0]),
    ("topk 2", lambda x: torch.topk(x, 2)[0]),
    ("topk 2 0 smallest", lambda x: x.topk(2, 0, largest=False)[0]),
    ("kthvalue 2", lambda x: torch.kthvalue(x, 2)[0]),
    ("kthvalue 2 0 keepdim", lambda x: torch.kthvalue(x, 2, 0, keepdim=True)[0]),
]
for name, fn in cases:
    x = torch.tensor(base, device=dev, requires_grad=True)
    y = fn(x)
    (y * torch.arange(1.0, y.numel() + 1, device=dev).reshape(y.shape)).sum().backward()
    # kthvalue without keepdim: Tensorscope's node is the select that
    # drops the dim (SelectBackward0), PyTorch's KthvalueBackward0
    node = "" if name == "kthvalue 2" else y.grad_fn.name()
    print(name, node, x.grad.tolist())
