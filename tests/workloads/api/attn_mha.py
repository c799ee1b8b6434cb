# nn.MultiheadAttention against PyTorch 1.13: the seed gives PyTorch's
# parameters; outputs, attention weights and gradients for its options.
import torch
import torch.nn as nn

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return None if t is None else [round(x, 4) + 0.0 for x in t.detach().cpu().flatten().tolist()]


def run(label, dev, kw, q_shape, kv_shape=None, self_attn=True, **fkw):
    torch.manual_seed(0)
    m = nn.MultiheadAttention(**kw)
    x = torch.randn(q_shape)
    kv = torch.randn(kv_shape) if kv_shape else None
    m = m.to(dev)
    q = x.to(dev).requires_grad_()
    if self_attn:
        k = v = q
    else:
        # v before k: on the CPU kv.to(dev) is kv itself, which requires_grad_ marks
        v = (kv * 0.5).to(dev) if kw.get("vdim") is None else torch.randn(kv_shape[:-1] + (kw["vdim"],)).to(dev)
        k = kv.to(dev).requires_grad_()
    fkw = {n: (a.to(dev) if isinstance(a, torch.Tensor) else a) for n, a in fkw.items()}
    out, w = m(q, k, v, **fkw)
    (out * torch.arange(out.numel(), dtype=out.dtype, device=dev).view(out.shape).cos()).sum().backward()
    print(label, list(out.shape), r(out))
    print("  weights", None if w is None else list(w.shape), r(w))
    print("  dq", r(q.grad))
    if not self_attn:
        print("  dk", r(k.grad))
    for name, p in m.named_parameters():
        print("  d" + name, list(p.shape), r(p.grad))


torch.manual_seed(0)
print(nn.MultiheadAttention(8, 2))
print(nn.MultiheadAttention(8, 2, kdim=3, vdim=5, bias=False, batch_first=True))
torch.manual_seed(0)
m = nn.MultiheadAttention(4, 2)
print([(n, list(p.shape), r(p)) for n, p in m.named_parameters()])

pad = torch.tensor([[False, False, True, False, True], [False, True, False, False, False]])
causal = torch.ones(5, 5, dtype=torch.bool).triu(1)
for dev in ("cpu", DEV):  # the oracle runs both passes on the CPU
    print("== pass")
    run("plain", dev, dict(embed_dim=4, num_heads=2), (5, 2, 4))
    run("unbatched", dev, dict(embed_dim=4, num_heads=1), (3, 4))
    run("batch_first", dev, dict(embed_dim=4, num_heads=2, batch_first=True), (2, 5, 4),
        key_padding_mask=pad, average_attn_weights=False)
    run("kpm_float", dev, dict(embed_dim=4, num_heads=2), (5, 2, 4),
        key_padding_mask=pad.float() * -2.0)
    run("causal", dev, dict(embed_dim=4, num_heads=2), (5, 2, 4), attn_mask=causal)
    run("mask_float3d", dev, dict(embed_dim=4, num_heads=2), (5, 2, 4),
        attn_mask=torch.arange(100.0).view(4, 5, 5).sin())
    run("mask_and_pad", dev, dict(embed_dim=4, num_heads=2), (5, 2, 4), attn_mask=causal,
        key_padding_mask=pad, need_weights=False)
    run("cross_kdim", dev, dict(embed_dim=4, num_heads=2, kdim=3, vdim=6), (3, 2, 4), (5, 2, 3),
        self_attn=False)
    run("bias_kv_zero", dev, dict(embed_dim=4, num_heads=2, add_bias_kv=True, add_zero_attn=True, bias=False),
        (5, 2, 4), attn_mask=causal, key_padding_mask=pad)
    run("cross_same", dev, dict(embed_dim=4, num_heads=4), (3, 2, 4), (5, 2, 4), self_attn=False)

# PyTorch 2.x's is_causal hint (1.13 lacks it: there the mask alone decides)
import torch.nn.functional as F  # noqa: E402
hint = {"is_causal": True} if hasattr(F, "scaled_dot_product_attention") else {}
for dev in ("cpu", DEV):
    run("is_causal_hint", dev, dict(embed_dim=4, num_heads=2), (5, 2, 4), attn_mask=causal, **hint)
if hint:
    try:
        nn.MultiheadAttention(4, 2)(torch.randn(3, 1, 4), torch.randn(3, 1, 4), torch.randn(3, 1, 4), is_causal=True)
    except RuntimeError as e:
        print("RuntimeError", e)
else:
    print("RuntimeError Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
          "method `generate_square_subsequent_mask` to create this mask.")

# F.multi_head_attention_forward itself: static_k/static_v, no biases
for dev in ("cpu", DEV):
    torch.manual_seed(3)
    q0, w0, ow0 = torch.randn(3, 2, 4), torch.randn(12, 4), torch.randn(4, 4)
    sk0, sv0 = torch.randn(4, 6, 2), torch.randn(4, 6, 2)
    q, w, ow = q0.to(dev), w0.to(dev).requires_grad_(), ow0.to(dev)
    sk, sv = sk0.to(dev).requires_grad_(), sv0.to(dev)
    out, wts = F.multi_head_attention_forward(q, q, q, 4, 2, w, None, None, None, False, 0.0, ow, None,
                                              static_k=sk, static_v=sv, average_attn_weights=False)
    (out * out).sum().backward()
    print("static_kv", r(out), list(wts.shape), r(wts)[:8])
    print("  dw", r(w.grad)[:8], "dsk", r(sk.grad)[:8])
