# torch.autocast('cpu', dtype=torch.bfloat16): the dtype each policy class
# gives (lower precision, float32, promote, untouched), nesting, disabling,
# the state restored after an exception, the decorator, and bfloat16 math.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 4)
w = torch.randn(4, 4, requires_grad=True)
i = torch.tensor([0, 2, 1, 3])
xb = x.bfloat16()
xd = x.double()

print("state", torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype(), torch.get_autocast_gpu_dtype(),
      torch.is_autocast_enabled(), torch.is_autocast_cache_enabled())

cases = [
    # lower precision
    ("mm", lambda: torch.mm(x, w)), ("matmul", lambda: x @ w), ("bmm", lambda: torch.bmm(x[None], w[None])),
    ("linear", lambda: F.linear(x, w)), ("linear_bias", lambda: F.linear(x, w, torch.ones(4))),
    ("matmul_double", lambda: xd @ xd),
    # float32
    ("prod", lambda: xb.prod()), ("mse_loss", lambda: F.mse_loss(xb, xb)), ("l1_loss", lambda: F.l1_loss(xb, x)),
    ("smooth_l1", lambda: F.smooth_l1_loss(xb, xb)), ("huber", lambda: F.huber_loss(xb, xb)),
    ("cross_entropy", lambda: F.cross_entropy(xb, i)), ("nll_loss", lambda: F.nll_loss(xb, i)),
    ("bce_logits", lambda: F.binary_cross_entropy_with_logits(xb, xb.sigmoid())),
    ("bce", lambda: F.binary_cross_entropy(xb.sigmoid(), xb.sigmoid())),
    # promote
    ("index_copy", lambda: x.index_copy(0, i, xb)),
    # as called
    ("add", lambda: xb + x), ("relu", lambda: xb.relu()), ("sum", lambda: xb.sum()), ("exp", lambda: xb.exp()),
    ("softmax", lambda: xb.softmax(0)), ("log_softmax", lambda: F.log_softmax(xb, 1)), ("pow", lambda: xb.pow(2)),
    ("cumsum", lambda: xb.cumsum(0)), ("layer_norm", lambda: F.layer_norm(xb, (4,))), ("mean", lambda: xb.mean()),
]
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("inside", torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype(), torch.is_autocast_enabled())
    for name, f in cases:
        print(name, f().dtype)

# gradients flow back through the casts to the float32 weight (the values
# of a bfloat16 product depend on the GEMM: amp_half_matmul checks them)
ref = (x @ w).detach()
with torch.autocast("cpu", dtype=torch.bfloat16):
    y = x @ w
    print(y.grad_fn.name(), [n.name() if n is not None else None for n, _ in y.grad_fn.next_functions])
    print(torch.allclose(y.float(), ref, atol=0.1))
loss = y.float().pow(2).sum()
loss.backward()
print(w.grad.dtype, torch.allclose(w.grad, 2 * x.t() @ ref, rtol=0.05, atol=0.5))

# nesting, and enabled=False inside
with torch.autocast("cpu", dtype=torch.bfloat16):
    with torch.autocast("cpu", enabled=False):
        print("disabled", torch.is_autocast_cpu_enabled(), (x @ w).dtype)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            print("again", (x @ w).dtype)
    print("restored", torch.is_autocast_cpu_enabled(), (x @ w).dtype)
print("outside", torch.is_autocast_cpu_enabled(), (x @ w).dtype)

# the state comes back after an exception
try:
    with torch.autocast("cpu", dtype=torch.bfloat16):
        raise ValueError("boom")
except ValueError as e:
    print("raised", e, torch.is_autocast_cpu_enabled())


# the decorator
@torch.autocast("cpu", dtype=torch.bfloat16)
def forward(a, b):
    return a @ b


print("decorated", forward(x, w).dtype, torch.is_autocast_cpu_enabled())

# torch.cpu.amp.autocast: the same for device_type 'cpu'
with torch.cpu.amp.autocast():
    print("cpu.amp", torch.is_autocast_cpu_enabled(), (x @ w).dtype)
    with torch.cpu.amp.autocast(enabled=False):
        print("cpu.amp disabled", (x @ w).dtype)

# the state is per thread: another thread runs as called
import threading
seen = []
with torch.autocast("cpu", dtype=torch.bfloat16):
    th = threading.Thread(target=lambda: seen.append((torch.is_autocast_cpu_enabled(), (x @ w).dtype)))
    th.start()
    th.join()
    print("thread", seen, (x @ w).dtype)

# the CUDA state is separate from the CPU's
with torch.autocast("cpu", dtype=torch.bfloat16):
    print("cuda state", torch.is_autocast_enabled())

# set_autocast_cpu_enabled by hand
torch.set_autocast_cpu_enabled(True)
print("by hand", (x @ w).dtype)
torch.set_autocast_cpu_enabled(False)
torch.set_autocast_cpu_dtype(torch.bfloat16)

# a bad device type
try:
    torch.autocast("tpu")
except RuntimeError as e:
    print("RuntimeError", e)

# CPU autocast takes bfloat16 only: another dtype warns, and entering the
# region fails
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        with torch.autocast("cpu", dtype=torch.float16):
            print("float16 region", torch.is_autocast_cpu_enabled())
    except RuntimeError as e:
        print("RuntimeError", e)
print([str(c.message) for c in caught])
print("after", torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype())
