# torch.autocast('cuda'): the dtype each policy class of PyTorch 1.13's
# autocast_mode.cpp gives on CUDA (expected written from its lists: the
# oracle has no CUDA). Lower precision: the matmul family and F.linear;
# float32: the transcendental, reduction and loss ops; as called: the rest,
# in-place forms, explicit dtypes, float64 and CPU tensors.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 4, device="cuda")
w = torch.randn(4, 4, device="cuda", requires_grad=True)
h = x.half()
i = torch.tensor([0, 2, 1, 3], device="cuda")

cases = [
    ("mm", lambda: torch.mm(x, w)), ("matmul", lambda: x @ w), ("bmm", lambda: torch.bmm(x[None], w[None])),
    ("linear", lambda: F.linear(x, w, torch.ones(4, device="cuda"))), ("matmul_double", lambda: x.double() @ x.double()),
    ("exp", lambda: h.exp()), ("log", lambda: h.abs().log()), ("pow", lambda: h ** 2), ("reciprocal", lambda: h.reciprocal()),
    ("rsqrt", lambda: h.abs().rsqrt()), ("sum", lambda: h.sum()), ("prod", lambda: h.prod()), ("cumsum", lambda: h.cumsum(0)),
    ("softmax", lambda: h.softmax(0)), ("log_softmax", lambda: F.log_softmax(h, 1)),
    ("mse_loss", lambda: F.mse_loss(h, h)), ("l1_loss", lambda: F.l1_loss(h, h)), ("cross_entropy", lambda: F.cross_entropy(h, i)),
    ("nll_loss", lambda: F.nll_loss(h, i)), ("bce_logits", lambda: F.binary_cross_entropy_with_logits(h, h.sigmoid())),
    ("layer_norm", lambda: F.layer_norm(h, (4,))), ("softplus", lambda: F.softplus(h)),
    ("scatter_add", lambda: x.scatter_add(0, i[None].expand(4, 4), h)), ("index_put", lambda: x.index_put((i,), h[0])),
    ("add", lambda: h + x), ("mul", lambda: h * h), ("relu", lambda: h.relu()), ("mean", lambda: h.mean()),
    ("tanh", lambda: h.tanh()), ("exp_double", lambda: x.double().exp()),
    ("sum_dtype", lambda: h.sum(dtype=torch.float16)), ("softmax_dtype", lambda: h.softmax(0, dtype=torch.float16)),
    ("cumsum_dtype", lambda: h.cumsum(0, dtype=torch.float16)), ("vector_matmul", lambda: x[0] @ x), ("exp_inplace", lambda: h.clone().exp_()),
    ("cpu_matmul", lambda: x.cpu() @ x.cpu()),
]
with torch.autocast("cuda", dtype=torch.float16):
    print("inside", torch.is_autocast_enabled(), torch.get_autocast_gpu_dtype(), torch.is_autocast_cpu_enabled())
    for name, f in cases:
        print(name, f().dtype)
    y = x @ w
    print(y.grad_fn.name(), [n.name() if n is not None else None for n, _ in y.grad_fn.next_functions])
    try:
        F.binary_cross_entropy(h.sigmoid(), h.sigmoid())
    except RuntimeError as e:
        print("RuntimeError", e)
print("outside", torch.is_autocast_enabled(), (x @ w).dtype, F.binary_cross_entropy(x.sigmoid(), x.sigmoid()).dtype)

with torch.autocast("cuda", dtype=torch.bfloat16):
    print("bfloat16", torch.get_autocast_gpu_dtype(), (x @ w).dtype, (x @ w).exp().dtype)
print("gpu dtype restored", torch.get_autocast_gpu_dtype())

with torch.cuda.amp.autocast():
    print("cuda.amp", torch.is_autocast_enabled(), (x @ w).dtype)
    with torch.cuda.amp.autocast(enabled=False):
        print("cuda.amp disabled", torch.is_autocast_enabled(), (x @ w).dtype)


@torch.cuda.amp.autocast()
def step(a, b):
    return F.linear(a, b)


print("decorated", step(x, w).dtype, torch.is_autocast_enabled())

torch.set_autocast_gpu_dtype(torch.bfloat16)
torch.set_autocast_enabled(True)
print("by hand", (x @ w).dtype)
torch.set_autocast_enabled(False)
torch.set_autocast_gpu_dtype(torch.float16)
print("off", (x @ w).dtype)

# a model's forward under autocast, its backward outside
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)).cuda()
with torch.autocast("cuda"):
    out = model(x)
    loss = F.mse_loss(out, torch.zeros(4, 2, device="cuda"))
print(out.dtype, loss.dtype)
loss.backward()
print([p.grad.dtype for p in model.parameters()])
