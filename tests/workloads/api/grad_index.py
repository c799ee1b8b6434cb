# Gradients of advanced indexing (index, masked_select, take, index_put_,
# masked_scatter_, put_), the scatter family (scatter_, scatter_add_,
# index_add_, index_copy_) and embedding (padding_idx, scale_grad_by_freq)
# (#15), on the CPU and on DEV. The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return None if t is None else [round(v, 4) + 0.0 for v in t.reshape(-1).cpu().tolist()]


def leaf(t, dev):
    return t.detach().to(dev).requires_grad_()


def weights(y, dev):
    return torch.arange(1.0, y.numel() + 1).reshape(y.shape).to(dev)


for dev in ("cpu", DEV):
    torch.manual_seed(0)
    base = torch.randn(3, 4)
    i = torch.tensor([2, 0, 2]).to(dev)
    mask = (base > 0).to(dev)

    for label, f in (("x[i]", lambda x: x[i]),
                     ("x[:, i]", lambda x: x[:, i]),
                     ("x[i, 1:]", lambda x: x[i, 1:]),
                     ("x[i, i]", lambda x: x[i, i]),
                     ("x[mask]", lambda x: x[mask]),
                     ("masked_select", lambda x: x.masked_select(mask[0])),
                     ("take", lambda x: torch.take(x, torch.tensor([[0, 11], [5, 0]]).to(dev)))):
        x = leaf(base, dev)
        y = f(x)
        (y * weights(y, dev)).sum().backward()
        print(label, y.grad_fn.name(), r(x.grad))

    # writes into a non-leaf: the history continues; values get grad.index
    for label, f in (("index_put_", lambda z, v: z.index_put_((i[:2],), v[:2])),
                     ("index_put_ acc", lambda z, v: z.index_put_((i,), v, accumulate=True)),
                     ("setitem", lambda z, v: z.__setitem__(i[:2], v[:2])),
                     ("setitem scalar", lambda z, v: z.__setitem__((i[:2], 1), 5.0)),
                     ("masked_scatter_", lambda z, v: z.masked_scatter_(mask, v)),
                     ("put_", lambda z, v: z.put_(torch.tensor([1, 6, 9]).to(dev), v[0, :3])),
                     ("put_ acc", lambda z, v: z.put_(torch.tensor([1, 1, 9]).to(dev), v[0, :3], accumulate=True))):
        x = leaf(base, dev)
        v = leaf(torch.arange(12.0).reshape(3, 4) / 10, dev)
        z = x * 1
        f(z, v)
        (z * weights(z, dev)).sum().backward()
        print(label, z.grad_fn.name(), r(x.grad), r(v.grad))

    idx = torch.tensor([[0, 2, 1, 0]]).to(dev)
    for label, f in (("scatter_", lambda z, s: z.scatter_(0, idx, s[:1])),
                     ("scatter_add_", lambda z, s: z.scatter_add_(0, idx, s[:1])),
                     ("scatter_ src too big", lambda z, s: z.scatter_(0, idx, s)),
                     ("scatter", lambda z, s: torch.scatter(z, 1, idx[:, :2].expand(3, 2), s)),
                     ("index_add_", lambda z, s: z.index_add_(0, i[:2], s[:2], alpha=2.0)),
                     ("index_copy_", lambda z, s: z.index_copy_(1, i[:2], s[:, :2]))):
        x = leaf(base, dev)
        s = leaf(torch.arange(12.0).reshape(3, 4) / 10, dev)
        z = f(x * 1, s)
        try:
            (z * weights(z, dev)).sum().backward()
        except RuntimeError as e:
            print(label, "RuntimeError:", e)
            continue
        print(label, z.grad_fn.name(), r(x.grad), r(s.grad))

    # embedding
    w0 = torch.randn(5, 3)
    ids = torch.tensor([[1, 4, 1], [0, 1, 2]]).to(dev)
    for kw in ({}, {"padding_idx": 1}, {"padding_idx": -1}, {"scale_grad_by_freq": True},
               {"padding_idx": 0, "scale_grad_by_freq": True}):
        w = leaf(w0, dev)
        y = torch.nn.functional.embedding(ids, w, **kw)
        (y * weights(y, dev)).sum().backward()
        print("embedding", kw, y.grad_fn.name(), r(w.grad))
    emb = torch.nn.Embedding(5, 3, padding_idx=2).to(dev)
    emb(ids).sum().backward()
    print("Embedding", r(emb.weight.grad))

    # double backward through index
    x = leaf(base, dev)
    g, = torch.autograd.grad((x[i] ** 2).sum(), x, create_graph=True)
    g.sum().backward()
    print("double", r(x.grad))
