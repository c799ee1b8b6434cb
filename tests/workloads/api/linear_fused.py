# nn.Linear as PyTorch 1.13's at::linear runs it (#15, #16): a 2-D input,
# or a contiguous 3-D one folded to rows, is one addmm with the bias
# (AddmmBackward0, whose weight input is TBackward0); other inputs are
# matmul then the bias added in place. torch.addmm's beta and alpha, its
# errors, and the one-kernel gradients of relu (threshold_backward) and
# the softmaxes (_softmax_backward_data, _log_softmax_backward_data),
# with create_graph taking the composed, differentiable path. The
# expected output is what Debian's python3-torch 1.13 prints for this
# script (`python3 linear_fused.py`).
import torch
import torch.nn.functional as F

dev = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)


def r(t, n=6, places=8):
    return [round(v, places) for v in t.flatten().tolist()[:n]]


x = torch.randn(4, 3, dtype=torch.float64).to(dev).requires_grad_()
w = torch.randn(5, 3, dtype=torch.float64).to(dev).requires_grad_()
b = torch.randn(5, dtype=torch.float64).to(dev).requires_grad_()
y = F.linear(x, w, b)
print("2-D", y.grad_fn.name(), [f[0].name() for f in y.grad_fn.next_functions])
(y * torch.arange(20., dtype=torch.float64).to(dev).view(4, 5)).sum().backward()
print(r(x.grad), r(w.grad), r(b.grad))

x3 = torch.randn(2, 4, 3, dtype=torch.float64).to(dev).requires_grad_()
y3 = F.linear(x3, w, b)
print("3-D", y3.grad_fn.name(), y3.grad_fn.next_functions[0][0].name(), tuple(y3.shape))
y3.pow(2).sum().backward()
print(r(x3.grad, 4), r(b.grad))

x1 = torch.randn(3, dtype=torch.float64).to(dev)
print("1-D", F.linear(x1, w, b).grad_fn.name(), r(F.linear(x1, w, b)))

x4 = torch.randn(2, 3, 4, 3, dtype=torch.float64).to(dev).requires_grad_()
y4 = F.linear(x4, w, b)
print("4-D", y4.grad_fn.name(), tuple(y4.shape))
y4.sum().backward()
print(r(b.grad))
xt = torch.randn(4, 2, 3, dtype=torch.float64).to(dev).transpose(0, 1)
print("strided 3-D", F.linear(xt, w, b).grad_fn.name())

m = torch.randn(4, 5, dtype=torch.float64).to(dev).requires_grad_()
z = torch.addmm(m, x, w.t(), beta=0.5, alpha=2.0)
z.sum().backward()
print("addmm", r(z, 5), r(m.grad, 3))
for args in [(torch.randn(4), torch.randn(4, 3), torch.randn(3, 5)),
             (torch.randn(5, dtype=torch.float64), torch.randn(4, 3), torch.randn(3, 5))]:
    try:
        torch.addmm(*[a.to(dev) for a in args])
    except RuntimeError as e:
        print("error:", e)
with torch.no_grad():
    print("no_grad", F.linear(x, w, b).grad_fn)
gw, = torch.autograd.grad(F.linear(x, w, b).pow(2).sum(), w, create_graph=True)
x.grad = None
gw.sum().backward()
print("double backward", r(x.grad, 4))

for dt in (torch.float32, torch.float64):
    s = torch.randn(4, 6, 5, dtype=dt).to(dev).requires_grad_()
    g = torch.randn(4, 6, 5, dtype=dt).to(dev)
    for fn in (torch.softmax, torch.log_softmax):
        for d in (0, 1, 2):
            s.grad = None
            fn(s, d).backward(g)
            print(fn.__name__, d, dt, r(s.grad, 5, 5))
    st = s.detach().transpose(0, 2).requires_grad_()
    torch.log_softmax(st, 1).backward(g.transpose(0, 2))
    print("strided", r(st.grad, 6, 5))

target = torch.randint(0, 5, (4,)).to(dev)
logits = torch.randn(4, 5).to(dev).requires_grad_()
gl, = torch.autograd.grad(F.cross_entropy(logits, target), logits, create_graph=True)
gl.pow(2).sum().backward()
print("cross_entropy double backward", r(logits.grad, 6, 5))
h = torch.tensor([[1.5, -2.0, 0.0, 3.0], [-0.5, 0.25, -1.0, 2.0]], dtype=torch.float64).to(dev).requires_grad_()
rl = h.relu()
gr, = torch.autograd.grad(rl.sum(), h, create_graph=True)
print("relu", rl.grad_fn.name(), gr.tolist())
rl2 = h.relu()
rl2.backward(torch.full_like(rl2, 2.0))
print("relu backward", h.grad.tolist())
