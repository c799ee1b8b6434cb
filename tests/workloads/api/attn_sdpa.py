# F.scaled_dot_product_attention (PyTorch 2.x's API): values and gradients
# against PyTorch 1.13, which lacks it, so there the same math is spelled
# out (ATen's math path): softmax(q k^T * scale + mask) v.
import math

import torch
import torch.nn.functional as F

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def reference(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    L, S = q.size(-2), k.size(-2)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    bias = torch.zeros(L, S, dtype=q.dtype)
    if is_causal:
        bias = bias.masked_fill(torch.ones(L, S, dtype=torch.bool).tril().logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            bias = torch.zeros(attn_mask.shape).masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            bias = attn_mask
    s = 1 / math.sqrt(q.size(-1)) if scale is None else scale
    w = (q @ k.transpose(-2, -1) * s + bias).softmax(-1)
    if dropout_p > 0:
        w = F.dropout(w, dropout_p)
    return w @ v


sdpa = getattr(F, "scaled_dot_product_attention", reference)


def r(t):
    return [round(x, 4) + 0.0 for x in t.detach().cpu().flatten().tolist()]


def case(label, dev, shape_q, shape_k, **kw):
    torch.manual_seed(0)
    q0, k0, v0 = torch.randn(shape_q), torch.randn(shape_k), torch.randn(shape_k)
    mask = kw.pop("mask", None)
    qs = [x.to(dev).requires_grad_() for x in (q0, k0, v0)]
    if mask is not None:
        mask = mask.to(dev)
    out = sdpa(*qs, attn_mask=mask, **kw)
    (out * torch.arange(out.numel(), dtype=out.dtype, device=dev).view(out.shape).sin()).sum().backward()
    print(label, list(out.shape), r(out))
    for n, x in zip("qkv", qs):
        print("  d" + n, r(x.grad))


for dev in ("cpu", DEV):  # the oracle runs both passes on the CPU
    print("== pass")
    case("plain", dev, (2, 3, 4), (2, 5, 4))
    case("4d", dev, (2, 2, 3, 4), (2, 2, 3, 4))
    case("scale", dev, (3, 4), (3, 4), scale=0.3)
    case("causal", dev, (1, 2, 4, 3), (1, 2, 4, 3), is_causal=True)
    bmask = torch.tensor([[True, False, True, True, False], [True, True, True, False, False],
                          [False, True, True, True, True]])
    case("bool", dev, (2, 3, 4), (2, 5, 4), mask=bmask)
    torch.manual_seed(1)
    case("float", dev, (2, 3, 4), (2, 5, 4), mask=torch.randn(2, 3, 5))
    case("dropout1", dev, (2, 3, 4), (2, 5, 4), dropout_p=1.0)

try:
    sdpa(torch.randn(2, 3), torch.randn(2, 3), torch.randn(2, 3), attn_mask=torch.ones(2, 2), is_causal=True)
except RuntimeError as e:
    print("RuntimeError", e)
# no batch dims, L != S with is_causal (the top-left triangle), and bool mask broadcast over heads
for dev in ("cpu", DEV):
    case("causal_rect", dev, (3, 4), (5, 4), is_causal=True)
    case("bool_bcast", dev, (2, 2, 3, 4), (2, 2, 5, 4), mask=torch.tensor([True, False, True, True, True]))

# dropout draws from the RNG: PyTorch's mask values are its bernoulli's (not
# modeled bit for bit), but a seed repeats them and the expectation holds
for dev in ("cpu", DEV):
    q = torch.randn(2, 4, 6, 8).to(dev)
    torch.manual_seed(5)
    a = sdpa(q, q, q, dropout_p=0.5)
    b = sdpa(q, q, q, dropout_p=0.5)
    torch.manual_seed(5)
    c = sdpa(q, q, q, dropout_p=0.5)
    print("dropout differs", bool((a != b).any()), "repeats", bool((a == c).all()))
    ones = torch.ones(1, 64, 8).to(dev)
    w = sdpa(ones, ones, torch.ones(1, 64, 1).to(dev), dropout_p=0.25)
    print("dropout mean near 1", abs(w.mean().item() - 1) < 0.1)
