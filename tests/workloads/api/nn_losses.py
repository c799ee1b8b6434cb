# torch.nn.functional losses and activations and their modules, forward values
# and gradients; the expected output was generated with Debian's python3-torch
# (PyTorch 1.13, CPU) on identical inputs. Values are rounded to 4 decimals.
import torch
import torch.nn as nn
import torch.nn.functional as F


def r(t):
    if isinstance(t, torch.Tensor):
        t = t.tolist()
    if isinstance(t, list):
        return [r(v) for v in t]
    return round(t, 4) + 0.0


def run(label, fn, *inputs):
    leaves = [torch.tensor(v, requires_grad=True) if isinstance(v, list) and isinstance(v[0], (float, list))
              else v for v in inputs]
    try:
        out = fn(*leaves)
        print(label, "=", r(out))
        if out.requires_grad:
            out.sum().backward()
            print("  grad", [r(v.grad) for v in leaves if isinstance(v, torch.Tensor) and v.requires_grad])
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


x = [[0.5, -1.0, 2.0, 0.1], [1.5, 0.2, -0.3, -2.0], [-0.7, 0.9, 0.05, 1.2]]
y = [[0.3, -0.8, 1.0, 0.0], [1.0, 1.0, -1.0, -2.5], [-0.6, 2.9, 0.0, 1.1]]
cls = torch.tensor([2, 0, 3])
cls_ign = torch.tensor([2, -100, 1])
w = torch.tensor([0.2, 1.0, 2.0, 0.5])
probs = [[0.1, 0.2, 0.3, 0.4], [0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]]
p01 = [[0.1, 0.8, 0.999, 0.5], [0.3, 0.01, 0.6, 0.95], [0.5, 0.5, 0.2, 0.7]]
t01 = torch.tensor([[0.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.5, 1.0], [0.0, 0.0, 1.0, 1.0]])

for red in ("mean", "sum", "none"):
    run("mse " + red, lambda a, b: F.mse_loss(a, b, reduction=red), x, y)
    run("l1 " + red, lambda a, b: F.l1_loss(a, b, reduction=red), x, y)
    run("smooth_l1 " + red, lambda a, b: F.smooth_l1_loss(a, b, reduction=red), x, y)
    run("cross_entropy " + red, lambda a: F.cross_entropy(a, cls, reduction=red), x)
    run("nll " + red, lambda a: F.nll_loss(a, cls, reduction=red), x)
    run("bce " + red, lambda a: F.binary_cross_entropy(a, t01, reduction=red), p01)
    run("bce_logits " + red, lambda a: F.binary_cross_entropy_with_logits(a, t01, reduction=red), x)
run("smooth_l1 beta", lambda a, b: F.smooth_l1_loss(a, b, beta=0.5), x, y)
run("smooth_l1 beta0", lambda a, b: F.smooth_l1_loss(a, b, beta=0.0), x, y)
run("huber", lambda a, b: F.huber_loss(a, b, delta=0.7), x, y)
run("ce weight", lambda a: F.cross_entropy(a, cls, weight=w), x)
run("ce ignore", lambda a: F.cross_entropy(a, cls_ign), x)
run("ce ignore weight", lambda a: F.cross_entropy(a, cls_ign, weight=w), x)
run("ce ignore_index=0", lambda a: F.cross_entropy(a, cls, ignore_index=0), x)
run("ce smoothing", lambda a: F.cross_entropy(a, cls, label_smoothing=0.1), x)
run("ce smoothing sum", lambda a: F.cross_entropy(a, cls, label_smoothing=0.2, reduction="sum"), x)
run("ce smoothing weight ignore", lambda a: F.cross_entropy(a, cls_ign, weight=w, label_smoothing=0.1), x)
run("ce probs", lambda a: F.cross_entropy(a, torch.tensor(probs)), x)
run("ce probs none", lambda a: F.cross_entropy(a, torch.tensor(probs), reduction="none"), x)
run("ce probs smoothing weight", lambda a: F.cross_entropy(a, torch.tensor(probs), weight=w,
                                                           label_smoothing=0.3), x)
run("ce 1d", lambda a: F.cross_entropy(a, torch.tensor(1)), [0.5, -1.0, 2.0])
run("ce 3d", lambda a: F.cross_entropy(a, torch.tensor([[0, 2], [1, 1]])),
    [[[0.5, -1.0], [2.0, 0.1], [0.3, 0.3]], [[1.5, 0.2], [-0.3, -2.0], [0.0, 1.0]]])
run("ce large", lambda a: F.cross_entropy(a, torch.tensor([0, 1])), [[1000.0, 0.0], [-500.0, 20.0]])
run("nll weight ignore", lambda a: F.nll_loss(a, cls_ign, weight=w), x)
run("bce weight", lambda a: F.binary_cross_entropy(a, t01, weight=w), p01)
# forward only: at 0 and 1 PyTorch clamps the gradient's denominator, a composition gives nan
print("bce extremes", r(F.binary_cross_entropy(torch.tensor([0.0, 1.0, 1.0]), torch.tensor([1.0, 0.0, 1.0]))))
run("bce_logits pos_weight", lambda a: F.binary_cross_entropy_with_logits(a, t01, pos_weight=w), x)
run("bce_logits weight", lambda a: F.binary_cross_entropy_with_logits(a, t01, weight=w), x)
run("bce_logits large", lambda a: F.binary_cross_entropy_with_logits(a, torch.tensor([1.0, 0.0, 1.0])),
    [100.0, -100.0, -100.0])
run("kl_div batchmean", lambda a: F.kl_div(a, torch.tensor(probs), reduction="batchmean"), x)
run("kl_div sum", lambda a: F.kl_div(a, torch.tensor([[0.0, 0.5, 0.5, 0.0]] * 3), reduction="sum"), x)
run("kl_div log_target", lambda a: F.kl_div(a, torch.tensor(y), reduction="batchmean", log_target=True), x)
run("kl_div none", lambda a: F.kl_div(a, torch.tensor(probs), reduction="none"), x)

# modules
run("MSELoss", nn.MSELoss(), x, y)
run("L1Loss sum", nn.L1Loss(reduction="sum"), x, y)
run("SmoothL1Loss", nn.SmoothL1Loss(beta=2.0), x, y)
run("CrossEntropyLoss", lambda a: nn.CrossEntropyLoss(weight=w, label_smoothing=0.05)(a, cls), x)
run("NLLLoss", lambda a: nn.NLLLoss(ignore_index=3)(a, cls), x)
run("BCELoss", lambda a: nn.BCELoss()(a, t01), p01)
run("BCEWithLogitsLoss", lambda a: nn.BCEWithLogitsLoss(pos_weight=w)(a, t01), x)
run("KLDivLoss", lambda a: nn.KLDivLoss(reduction="batchmean")(a, torch.tensor(probs)), x)
print(nn.CrossEntropyLoss(), nn.MSELoss(), list(nn.CrossEntropyLoss(weight=w).state_dict()))

# errors
run("ce bad target", lambda a: F.cross_entropy(a, torch.tensor([1, 2])), x)
run("smooth_l1 neg beta", lambda a, b: F.smooth_l1_loss(a, b, beta=-1.0), x, y)
run("bad reduction", lambda a, b: F.mse_loss(a, b, reduction="avg"), x, y)
run("ce bad smoothing", lambda a: F.cross_entropy(a, cls, label_smoothing=1.5), x)

# activations
v = [-3.0, -1.0, -0.2, 0.0, 0.3, 1.0, 25.0]
run("relu", F.relu, v)
run("silu", F.silu, v)
run("gelu tanh", lambda a: F.gelu(a, approximate="tanh"), v)
run("leaky_relu", lambda a: F.leaky_relu(a, 0.2), v)
run("elu", lambda a: F.elu(a, 0.5), v)
run("tanh", torch.tanh, v)
run("sigmoid", torch.sigmoid, v)
print("gelu", r(F.gelu(torch.tensor(v))))
print("softplus", r(F.softplus(torch.tensor(v))), r(F.softplus(torch.tensor(v), beta=2, threshold=1)))
for m in (nn.ReLU(), nn.GELU(), nn.GELU("tanh"), nn.SiLU(), nn.LeakyReLU(0.1), nn.ELU(), nn.Softplus(),
          nn.Tanh(), nn.Sigmoid(), nn.Dropout(0.3), nn.Flatten(), nn.Unflatten(1, (2, 2)), nn.Identity()):
    print(repr(m))
print("SiLU", r(nn.SiLU()(torch.tensor(v))), "LeakyReLU", r(nn.LeakyReLU()(torch.tensor(v))))
print("ELU", r(nn.ELU()(torch.tensor(v))), "Softplus", r(nn.Softplus(beta=0.5)(torch.tensor(v))))

# LayerNorm, Flatten, Unflatten, Dropout
torch.manual_seed(0)
ln = nn.LayerNorm(4)
print(ln, r(ln.weight), r(ln.bias))
run("layer_norm", ln, x)
print("  param grads", r(ln.weight.grad), r(ln.bias.grad))
ln2 = nn.LayerNorm([3, 4], eps=1e-3, elementwise_affine=False)
print(ln2, list(ln2.parameters()))
run("layer_norm 2d", ln2, [x, y])
run("layer_norm affine", lambda a: F.layer_norm(a, (4,), w, torch.tensor([0.1, 0.2, 0.3, 0.4])), x)
run("layer_norm bad", lambda a: F.layer_norm(a, (3,)), x)
z = torch.arange(24.0).reshape(2, 3, 4)
print("flatten", nn.Flatten()(z).shape, nn.Flatten(0, 1)(z).shape, nn.Unflatten(2, (2, 2))(z).shape)
d = nn.Dropout(0.5)
ones = torch.ones(1000)
o = d(ones)
print("dropout train", o.shape, sorted(set(o.tolist())), 300 < int((o == 0).sum()) < 700)
d.eval()
print("dropout eval", d(ones) is ones, d.training)
print("dropout p=0", F.dropout(ones, 0.0) is ones, r(F.dropout(torch.ones(3), 1.0)))
run("dropout bad p", lambda: nn.Dropout(1.5))

# in-place activations on a tensor of the graph: the same values and gradients
for name, f in (("leaky_relu_", lambda t: F.leaky_relu(t, 0.1, inplace=True)),
                ("elu_", lambda t: F.elu(t, inplace=True)), ("silu_", lambda t: F.silu(t, inplace=True)),
                ("ReLU(inplace)", nn.ReLU(inplace=True))):
    a = torch.tensor([-1.0, 2.0, 0.5], requires_grad=True)
    b = a * 2
    c = f(b)
    c.sum().backward()
    print(name, c is b, r(c), r(a.grad))
run("inplace leaf", lambda a: F.leaky_relu(a, inplace=True), [1.0, -1.0])
