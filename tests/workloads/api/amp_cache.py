# The autocast weight cache: inside one region, the lower-precision copy of
# a float32 leaf that requires grad is made once and reused; other tensors
# are cast at each use; cache_enabled=False and leaving the region drop it.
import torch

torch.manual_seed(0)
x = torch.randn(3, 4)
w = torch.randn(4, 2, requires_grad=True)
v = torch.randn(4, 2)


def cast_node(y, k):
    return y.grad_fn.next_functions[k][0]


with torch.autocast("cpu", dtype=torch.bfloat16):
    a = x @ w
    b = x @ w
    print("weight cached", cast_node(a, 1) == cast_node(b, 1))
    print("cast node", cast_node(a, 1).name())
    c = x @ v
    d = x @ v
    print("no grad, no node", c.grad_fn, d.dtype)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        e = x @ w
    # the inner region's exit is not the outermost: the cache lives on
    f = x @ w
    print("nested keeps it", cast_node(e, 1) == cast_node(a, 1), cast_node(f, 1) == cast_node(a, 1))

with torch.autocast("cpu", dtype=torch.bfloat16):
    g = x @ w
print("new region, new cast", cast_node(g, 1) == cast_node(a, 1))

with torch.autocast("cpu", dtype=torch.bfloat16, cache_enabled=False):
    h = x @ w
    i = x @ w
    print("cache disabled", cast_node(h, 1) == cast_node(i, 1), torch.is_autocast_cache_enabled())
print("cache flag restored", torch.is_autocast_cache_enabled())

# a view of the weight is no leaf: cast at each use
with torch.autocast("cpu", dtype=torch.bfloat16):
    j = x @ w.t().t()
    k = x @ w.t().t()
    print("view", cast_node(j, 1) == cast_node(k, 1))

# gradients of a cached cast accumulate into the one weight
with torch.autocast("cpu", dtype=torch.bfloat16):
    s = (x @ w).float().sum() + (x @ w).float().sum()
s.backward()
print(w.grad.dtype, torch.allclose(w.grad, 2 * x.sum(0, keepdim=True).t().expand(4, 2), atol=0.05))
