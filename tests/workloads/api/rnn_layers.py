# nn.RNN, nn.LSTM, nn.GRU against PyTorch 1.13: the seed gives PyTorch's
# weights; outputs, final states and gradients for their options.
import torch
import torch.nn as nn

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t):
    return [round(x, 4) + 0.0 for x in t.detach().cpu().flatten().tolist()]


def run(label, dev, cls, kw, shape, h0=False):
    torch.manual_seed(0)
    m = cls(**kw)
    x0 = torch.randn(shape)
    hx = None
    if h0:
        n = m.num_layers * (2 if m.bidirectional else 1)
        batch = () if len(shape) == 2 else (shape[0] if m.batch_first else shape[1],)
        hsize = m.proj_size if getattr(m, "proj_size", 0) else m.hidden_size
        h = torch.randn((n,) + batch + (hsize,)).to(dev)
        hx = (h, torch.randn((n,) + batch + (m.hidden_size,)).to(dev)) if cls is nn.LSTM else h
    m = m.to(dev)
    x = x0.to(dev).requires_grad_()
    out, state = m(x, hx)
    states = state if isinstance(state, tuple) else (state,)
    loss = (out * torch.arange(out.numel(), dtype=out.dtype, device=dev).view(out.shape).cos()).sum()
    for s in states:
        loss = loss + (s * s).sum()
    loss.backward()
    print(label, list(out.shape), r(out))
    for s in states:
        print("  state", list(s.shape), r(s))
    print("  dx", r(x.grad))
    for name, p in m.named_parameters():
        print("  d" + name, list(p.shape), r(p.grad))


print(nn.RNN(3, 4, nonlinearity="relu", num_layers=2, dropout=0.5, bidirectional=True, batch_first=True,
             bias=False))
print(nn.LSTM(3, 4, proj_size=2), nn.GRU(3, 4))
torch.manual_seed(0)
m = nn.LSTM(2, 3, num_layers=2, bidirectional=True)
print([(n, list(p.shape)) for n, p in m.named_parameters()])
print(r(m.weight_hh_l1_reverse))

for dev in ("cpu", DEV):  # the oracle runs both passes on the CPU
    print("== pass")
    run("rnn", dev, nn.RNN, dict(input_size=3, hidden_size=4), (5, 2, 3))
    run("rnn_relu_h0", dev, nn.RNN, dict(input_size=3, hidden_size=4, nonlinearity="relu", num_layers=2),
        (4, 2, 3), h0=True)
    run("gru", dev, nn.GRU, dict(input_size=3, hidden_size=4, batch_first=True), (2, 5, 3), h0=True)
    run("gru_bi", dev, nn.GRU, dict(input_size=3, hidden_size=3, bidirectional=True, num_layers=2), (4, 2, 3))
    run("lstm", dev, nn.LSTM, dict(input_size=3, hidden_size=4), (5, 2, 3), h0=True)
    run("lstm_bi_bf", dev, nn.LSTM, dict(input_size=3, hidden_size=3, bidirectional=True, batch_first=True,
                                         bias=False), (2, 4, 3))
    run("lstm_2l_eval_dropout", dev, nn.LSTM, dict(input_size=3, hidden_size=4, num_layers=2, dropout=0.0),
        (3, 2, 3))
    run("lstm_proj", dev, nn.LSTM, dict(input_size=3, hidden_size=4, proj_size=2), (4, 2, 3), h0=True)
    run("lstm_unbatched", dev, nn.LSTM, dict(input_size=3, hidden_size=4), (5, 3), h0=True)
    run("gru_unbatched", dev, nn.GRU, dict(input_size=3, hidden_size=4), (5, 3))

# dropout between layers: drawn in training (a seed repeats it), none in eval
for dev in ("cpu", DEV):
    torch.manual_seed(0)
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = torch.randn(4, 2, 3).to(dev)
    m = m.to(dev)
    torch.manual_seed(1)
    a = m(x)[0]
    b = m(x)[0]
    torch.manual_seed(1)
    c = m(x)[0]
    m.eval()
    e = m(x)[0]
    print("train differs", bool((a != b).any()), "repeats", bool((a == c).all()), "eval", r(e)[:6])
