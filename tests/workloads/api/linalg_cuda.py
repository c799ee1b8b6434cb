# torch.linalg on simulated CUDA tensors (#14): each op runs as its ATen
# ops' launches on the device (the host fallback computes them: PyTorch's
# cuSOLVER/MAGMA calls have no device kernels here), gives the CPU's
# values, and checks its infos with a host synchronization, as 1.13 does.
import torch
from linalg_inputs import mat as _mat
from torch.profiler import profile, ProfilerActivity
L = torch.linalg




def mat(*shape, seed=0.0):
    return _mat(*shape, seed=seed, dtype=torch.float32)


A = mat(2, 4, 4) + 3 * torch.eye(4)
B = mat(2, 4, 3, seed=1.0)
P = A @ A.transpose(-2, -1)
M = mat(5, 3, seed=0.5)
cases = {
    "inv": lambda t: L.inv(t(A)),
    "solve": lambda t: L.solve(t(A), t(B)),
    "det": lambda t: L.det(t(A)),
    "slogdet": lambda t: L.slogdet(t(A)).logabsdet,
    "cholesky": lambda t: L.cholesky(t(P)),
    "eigvalsh": lambda t: L.eigvalsh(t(P)),
    "svdvals": lambda t: L.svdvals(t(M)),
    "qr R": lambda t: L.qr(t(M)).R,
    "lstsq": lambda t: L.lstsq(t(M), t(mat(5, 2))).solution,
    "pinv": lambda t: L.pinv(t(M)),
    "solve_triangular": lambda t: L.solve_triangular(t(A).triu(), t(B), upper=True),
    "matrix_power": lambda t: L.matrix_power(t(A), 3),
}
for name, f in cases.items():
    got = f(lambda x: x.cuda())
    want = f(lambda x: x)
    print(name, got.device, tuple(got.shape), bool((got.cpu() - want).abs().max() < 1e-4))

with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
    L.cholesky(P.cuda())
    L.eigh(P.cuda())
    L.svd(M.cuda(), full_matrices=False)
names = []
for e in prof.events():
    if e.name.startswith("aten::") and "linalg" in e.name and e.name not in names:
        names.append(e.name)
print(names)
try:
    L.inv(torch.zeros(2, 3, 3, device="cuda"))
except RuntimeError as e:
    print(type(e).__name__, e)
torch.cuda.synchronize()
print(torch.cuda.memory_allocated() > 0)
