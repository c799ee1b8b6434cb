# nn.RNNCell, nn.LSTMCell, nn.GRUCell against PyTorch 1.13 (weights from
# the seed, values and gradients over a few steps), and the checks.
import warnings

import torch
import torch.nn as nn

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return [round(x, 4) + 0.0 for x in t.detach().cpu().flatten().tolist()]


def run(label, dev, cls, kw, shape, steps=3, h0=True):
    torch.manual_seed(0)
    m = cls(**kw)
    xs0 = torch.randn((steps,) + shape)
    batch = shape[:-1]
    h = torch.randn(batch + (m.hidden_size,)).to(dev) if h0 else None
    if h0 and cls is nn.LSTMCell:
        h = (h, torch.randn(batch + (m.hidden_size,)).to(dev))
    m = m.to(dev)
    xs = xs0.to(dev).requires_grad_()
    loss = 0
    for t in range(steps):
        h = m(xs[t], h)
        for s in (h if isinstance(h, tuple) else (h,)):
            loss = loss + (s * torch.arange(s.numel(), dtype=s.dtype, device=dev).view(s.shape).sin()).sum()
    loss.backward()
    print(label, [r(s) for s in (h if isinstance(h, tuple) else (h,))])
    print("  dx", r(xs.grad))
    for name, p in m.named_parameters():
        print("  d" + name, list(p.shape), r(p.grad))


print(nn.RNNCell(3, 4, nonlinearity="relu", bias=False), nn.LSTMCell(3, 4), nn.GRUCell(3, 4, bias=False))
for dev in ("cpu", DEV):  # the oracle runs both passes on the CPU
    print("== pass")
    run("rnncell", dev, nn.RNNCell, dict(input_size=3, hidden_size=4), (2, 3))
    run("rnncell_relu", dev, nn.RNNCell, dict(input_size=3, hidden_size=4, nonlinearity="relu"), (2, 3),
        h0=False)
    run("lstmcell", dev, nn.LSTMCell, dict(input_size=3, hidden_size=4), (2, 3))
    run("lstmcell_nobias", dev, nn.LSTMCell, dict(input_size=3, hidden_size=4, bias=False), (2, 3), h0=False)
    run("grucell", dev, nn.GRUCell, dict(input_size=3, hidden_size=4), (2, 3))
    run("grucell_unbatched", dev, nn.GRUCell, dict(input_size=3, hidden_size=4), (3,))
    run("lstmcell_unbatched", dev, nn.LSTMCell, dict(input_size=3, hidden_size=4), (3,))


def err(label, f):
    try:
        f()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, e)


with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    nn.GRU(3, 4, dropout=0.5)
    print([str(x.message) for x in w])
err("proj_gru", lambda: nn.GRU(3, 4, proj_size=2))
err("proj_big", lambda: nn.LSTM(3, 4, proj_size=4))
err("nonlin", lambda: nn.RNN(3, 4, nonlinearity="gelu"))
err("input_size", lambda: nn.LSTM(3, 4)(torch.randn(2, 2, 5)))
err("hidden", lambda: nn.GRU(3, 4)(torch.randn(2, 2, 3), torch.randn(1, 3, 4)))
err("c_size", lambda: nn.LSTM(3, 4)(torch.randn(2, 2, 3), (torch.randn(1, 2, 4), torch.randn(1, 2, 3))))
err("dim4", lambda: nn.RNN(3, 4)(torch.randn(2, 2, 2, 3)))
err("cell_dim3", lambda: nn.LSTMCell(3, 4)(torch.randn(2, 2, 3)))
err("hx_dims", lambda: nn.LSTM(3, 4)(torch.randn(2, 3), (torch.randn(1, 1, 4), torch.randn(1, 4))))
err("hx_dim_rnn", lambda: nn.RNN(3, 4)(torch.randn(2, 2, 3), torch.randn(2, 4)))
