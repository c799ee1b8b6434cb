# Gradients of torch.linalg (#14) against PyTorch 1.13: each op's node name
# and the gradient of a sum weighted by fixed tensors (so that every output
# element counts differently), float64, batched where 1.13 allows it, and
# the deprecation warnings of the legacy forms. The expected output is what
# Debian's python3-torch 1.13 prints for this script.
import warnings

import torch
from linalg_inputs import mat
L = torch.linalg


def r(t, nd=4):
    return [round(v, nd) + 0.0 for v in t.detach().reshape(-1).double().tolist()]




def weights(t, seed):
    return mat(*t.shape, seed=seed) if t.dim() else torch.tensor(0.3 + seed, dtype=torch.float64)


def check(what, f, *inputs):
    leaves = [x.detach().clone().requires_grad_() for x in inputs]
    try:
        out = f(*leaves)
        outs = out if isinstance(out, tuple) else (out,)
        outs = [o for o in outs if isinstance(o, torch.Tensor) and o.requires_grad]
        loss = sum((o * weights(o, 1.0 + i)).sum() for i, o in enumerate(outs))
        grads = torch.autograd.grad(loss, leaves, allow_unused=True)
        print(what, outs[0].grad_fn.name(), [r(g) if g is not None else None for g in grads])
    except Exception as e:
        print(what, type(e).__name__, str(e).split("\n")[0])


def sign_fixed(V):
    # eigen/singular vectors up to sign: a loss invariant to their signs
    return V * V


A = mat(3, 3) + 2 * torch.eye(3, dtype=torch.float64)
Ab = mat(2, 3, 3, seed=0.3) + 2 * torch.eye(3, dtype=torch.float64)
B = mat(3, 2, seed=2.0)
M = mat(4, 3, seed=0.5)
W = mat(3, 5, seed=1.5)
S = mat(3, 3, seed=1.0)
P = S @ S.T + 3 * torch.eye(3, dtype=torch.float64)

check("inv", L.inv, A)
check("inv batch", L.inv, Ab)
check("inv_ex", lambda a: L.inv_ex(a).inverse, A)
check("inverse", torch.inverse, A)
check("det", L.det, A)
check("det batch", L.det, Ab)
check("torch.det", torch.det, A)
check("slogdet", lambda a: L.slogdet(a).logabsdet, Ab)
check("logdet", torch.logdet, P)
check("solve", L.solve, A, B)
check("solve vector", L.solve, A, B[:, 0])
check("solve broadcast", L.solve, Ab, B)
check("solve left=False", lambda a, b: L.solve(a, b, left=False), A, B.T)
check("cholesky", L.cholesky, P)
check("cholesky upper", lambda p: L.cholesky(p, upper=True), P)
check("cholesky_ex", lambda p: L.cholesky_ex(p).L, P)
check("eigh values", lambda p: L.eigh(p).eigenvalues, P)
check("eigh vectors", lambda p: sign_fixed(L.eigh(p).eigenvectors), P)
check("eigh both", lambda p: (L.eigh(p)[0], sign_fixed(L.eigh(p)[1])), P)
check("eigvalsh", L.eigvalsh, P)
check("svd S", lambda m: L.svd(m, full_matrices=False).S, M)
check("svd U", lambda m: sign_fixed(L.svd(m, full_matrices=False).U), M)
check("svd Vh", lambda m: sign_fixed(L.svd(m, full_matrices=False).Vh), M)
check("svd wide U Vh", lambda m: (sign_fixed(L.svd(m, full_matrices=False).U), sign_fixed(L.svd(m, full_matrices=False).Vh)), W)
check("svdvals", L.svdvals, M)
check("qr", lambda m: L.qr(m), M)
check("qr square", lambda m: L.qr(m), A)
check("qr wide", lambda m: L.qr(m), W)
check("qr r", lambda m: L.qr(m, mode="r").R, M)
check("pinv", L.pinv, M)
check("pinv wide", L.pinv, W)
check("matrix_power 3", lambda a: L.matrix_power(a, 3), A)
check("matrix_power -2", lambda a: L.matrix_power(a, -2), A)
check("multi_dot", lambda m, a, b: L.multi_dot([m, a, b]), M, A, B)
check("solve_triangular", lambda a, b: L.solve_triangular(a.triu(), b, upper=True), A, B)
check("solve_triangular lower right", lambda a, b: L.solve_triangular(a.tril(), b, upper=False, left=False), A, B.T)
check("cholesky_solve", lambda b, p: torch.cholesky_solve(b, L.cholesky(p)), B, P)
check("cholesky_inverse", lambda p: torch.cholesky_inverse(L.cholesky(p)), P)
check("lstsq", lambda m, b: L.lstsq(m, b).solution, M, mat(4, 2, seed=3.0))
check("cross", L.cross, M[:, :3], M.flip(0)[:, :3])
check("lu", lambda a: L.lu(a)[1:], A)

# a second derivative through inv's formula
x = A.clone().requires_grad_()
g, = torch.autograd.grad(L.inv(x).sum(), x, create_graph=True)
print("inv double backward", g.grad_fn is not None)

# the deprecated forms warn once, with 1.13's texts
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.cholesky(P)
    torch.cholesky(P)
    torch.qr(M)
    torch.triangular_solve(B, A.triu())
    torch.chain_matmul(M, A)
    torch.lu(A)
    torch.lu_solve(B, *L.lu_factor(A))
for w in caught:
    print("warning", w.category.__name__, str(w.message).split("\n")[0])
