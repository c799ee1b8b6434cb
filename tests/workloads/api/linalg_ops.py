# torch.linalg and the legacy torch.* solvers (#14) over LAPACK: values,
# batches, broadcasting, float32/float64, the _ex variants' infos and the
# error texts of PyTorch 1.13. The expected output is what Debian's
# python3-torch 1.13 prints for this script; values are rounded to 4
# decimals, and eigen and singular vectors have their signs fixed (largest
# component positive), where LAPACK builds may differ.
import warnings

import torch
from linalg_inputs import mat
L = torch.linalg
# the deprecated torch.* forms warn once, as 1.13 does (linalg_grad.py prints those warnings)
warnings.simplefilter("ignore")


def r(t, nd=4):
    return [round(v, nd) + 0.0 for v in t.detach().reshape(-1).double().tolist()]


def fix(V, dim=-2):
    """each vector (a column for dim=-2) with its largest entry positive"""
    idx = V.abs().argmax(dim, keepdim=True)
    s = torch.gather(V, dim, idx).sign()
    return V * s


def tr(what, f):
    try:
        v = f()
        if isinstance(v, torch.Tensor):
            print(what, str(v.dtype)[6:], list(v.shape), r(v))
        elif isinstance(v, tuple):
            print(what, [(str(x.dtype)[6:], list(x.shape), r(x)) for x in v])
        else:
            print(what, v)
    except Exception as e:
        print(what, type(e).__name__, str(e).split("\n")[0])




def spd(n, batch=(), dtype=torch.float64):
    A = mat(*batch, n, n, seed=1.0)
    return (A @ A.transpose(-2, -1) + n * torch.eye(n, dtype=torch.float64)).to(dtype)


for dt in (torch.float32, torch.float64):
    print("==", dt)
    A = mat(3, 3, dtype=dt) + 2 * torch.eye(3, dtype=dt)
    Ab = mat(2, 3, 3, seed=0.3, dtype=dt) + 2 * torch.eye(3, dtype=dt)
    B = mat(3, 2, seed=2.0, dtype=dt)
    M = mat(4, 3, seed=0.5, dtype=dt)
    W = mat(3, 5, seed=1.5, dtype=dt)
    P = spd(3, dtype=dt)
    Pb = spd(3, (2,), dtype=dt)
    tr("inv", lambda: L.inv(A))
    tr("inv batch", lambda: L.inv(Ab))
    tr("inv_ex", lambda: L.inv_ex(Ab))
    tr("inverse", lambda: torch.inverse(A))
    tr("Tensor.inverse", lambda: A.inverse())
    tr("solve", lambda: L.solve(A, B))
    tr("solve vector", lambda: L.solve(A, B[:, 0]))
    tr("solve broadcast", lambda: L.solve(Ab, B))
    tr("solve left=False", lambda: L.solve(A, B.T, left=False))
    tr("solve_ex", lambda: L.solve_ex(Ab, B))
    tr("solve_triangular upper", lambda: L.solve_triangular(A.triu(), B, upper=True))
    tr("solve_triangular lower right", lambda: L.solve_triangular(A.tril(), B.T, upper=False, left=False))
    tr("solve_triangular unit", lambda: L.solve_triangular(A.triu(), B, upper=True, unitriangular=True))
    tr("triangular_solve", lambda: torch.triangular_solve(B, A.triu()))
    tr("triangular_solve lower transpose", lambda: torch.triangular_solve(B, A.tril(), upper=False, transpose=True))
    tr("det", lambda: L.det(A))
    tr("det batch", lambda: L.det(Ab))
    tr("torch.det", lambda: torch.det(M[:3]))
    tr("slogdet", lambda: L.slogdet(Ab))
    tr("torch.slogdet", lambda: torch.slogdet(-A))
    tr("logdet", lambda: torch.logdet(P))
    tr("logdet negative", lambda: torch.logdet(-P))
    tr("cholesky", lambda: L.cholesky(P))
    tr("cholesky upper", lambda: L.cholesky(Pb, upper=True))
    tr("cholesky_ex", lambda: L.cholesky_ex(Pb))
    tr("torch.cholesky", lambda: torch.cholesky(P))
    tr("cholesky_solve", lambda: torch.cholesky_solve(B, L.cholesky(P)))
    tr("cholesky_solve upper", lambda: torch.cholesky_solve(B, L.cholesky(P, upper=True), upper=True))
    tr("cholesky_inverse", lambda: torch.cholesky_inverse(L.cholesky(P)))
    tr("qr", lambda: L.qr(M))
    tr("qr complete", lambda: L.qr(M, mode="complete"))
    tr("qr r", lambda: L.qr(M, mode="r"))
    tr("qr wide", lambda: L.qr(W))
    tr("torch.qr", lambda: torch.qr(Ab))
    tr("geqrf", lambda: torch.geqrf(M))
    tr("householder_product", lambda: L.householder_product(*torch.geqrf(M)))
    tr("svdvals", lambda: L.svdvals(M))
    tr("svdvals wide batch", lambda: L.svdvals(mat(2, 3, 5, dtype=dt)))

    def svd_fixed(X, full):
        U, S, Vh = L.svd(X, full_matrices=full)
        k = S.shape[-1]
        Uk = U[..., :k]
        s = torch.gather(Uk, -2, Uk.abs().argmax(-2, keepdim=True)).sign()
        return (Uk * s, S, Vh[..., :k, :] * s.transpose(-2, -1), (Uk * S.unsqueeze(-2)) @ Vh[..., :k, :])
    tr("svd reduced", lambda: svd_fixed(M, False))
    tr("svd full shapes", lambda: [list(x.shape) for x in L.svd(M)])
    tr("svd wide", lambda: svd_fixed(W, False))
    tr("torch.svd", lambda: (torch.svd(M)[1], torch.svd(M, compute_uv=False)[0]))
    tr("eigh", lambda: (L.eigh(P)[0], fix(L.eigh(P)[1])))
    tr("eigh U batch", lambda: (L.eigh(Pb, UPLO="U")[0], fix(L.eigh(Pb, UPLO="U")[1])))
    tr("eigvalsh", lambda: L.eigvalsh(Pb))
    tr("lstsq", lambda: L.lstsq(M, mat(4, 2, seed=3.0, dtype=dt)))
    tr("lstsq gelsd", lambda: L.lstsq(M, mat(4, 2, seed=3.0, dtype=dt), driver="gelsd"))
    tr("lstsq gels", lambda: L.lstsq(M, mat(4, 2, seed=3.0, dtype=dt), driver="gels").solution)
    tr("lstsq gelss", lambda: L.lstsq(M, mat(4, 2, seed=3.0, dtype=dt), driver="gelss"))
    tr("matrix_rank", lambda: L.matrix_rank(M))
    tr("matrix_rank singular", lambda: L.matrix_rank(torch.ones(3, 3, dtype=dt)))
    tr("matrix_rank hermitian", lambda: L.matrix_rank(P, hermitian=True))
    tr("pinv", lambda: L.pinv(M))
    tr("pinv wide", lambda: L.pinv(W))
    tr("pinv hermitian", lambda: L.pinv(P, hermitian=True))
    tr("pinverse", lambda: torch.pinverse(M))
    tr("matrix_power 3", lambda: L.matrix_power(A, 3))
    tr("matrix_power 0", lambda: L.matrix_power(Ab, 0))
    tr("matrix_power -2", lambda: L.matrix_power(A, -2))
    tr("matrix_power 6", lambda: torch.matrix_power(A, 6))
    tr("multi_dot", lambda: L.multi_dot([M, A, B]))
    tr("multi_dot vectors", lambda: L.multi_dot([M[:, 0], M, A, B[:, 1]]))
    tr("chain_matmul", lambda: torch.chain_matmul(M, A, B))
    tr("cross", lambda: L.cross(M, M.flip(0)))
    tr("cross dim", lambda: L.cross(A, B[:, :1].expand(3, 3), dim=0))
    tr("vecdot", lambda: L.vecdot(M, M))
    tr("lu_factor", lambda: L.lu_factor(A))
    tr("lu_factor_ex batch", lambda: L.lu_factor_ex(Ab))
    tr("lu", lambda: L.lu(M))
    tr("lu wide", lambda: L.lu(W))
    tr("lu_unpack", lambda: torch.lu_unpack(*L.lu_factor(A)))
    tr("lu_solve", lambda: L.lu_solve(*L.lu_factor(A), B))
    tr("lu_solve adjoint", lambda: L.lu_solve(*L.lu_factor(A), B, adjoint=True))
    tr("torch.lu_solve", lambda: torch.lu_solve(B, *torch.lu(A)))
    tr("empty inv", lambda: L.inv(torch.ones(0, 0, dtype=dt)))
    tr("empty det", lambda: L.det(torch.ones(2, 0, 0, dtype=dt)))

print("== errors")
S0 = torch.tensor([[1., 2.], [2., 4.]])
N = torch.tensor([[1., 2.], [2., 1.]])
i2 = torch.ones(2, 2, dtype=torch.long)
R = mat(2, 3, dtype=torch.float32)
tr("inv int", lambda: L.inv(i2))
tr("inv half", lambda: L.inv(torch.ones(2, 2, dtype=torch.half)))
tr("inv 1d", lambda: L.inv(torch.ones(3)))
tr("inv nonsquare", lambda: L.inv(R))
tr("inv singular", lambda: L.inv(S0))
tr("inv zeros", lambda: L.inv(torch.zeros(3, 3)))
tr("inv batch singular", lambda: L.inv(torch.stack([torch.eye(2), S0])))
tr("inverse singular", lambda: torch.inverse(S0))
tr("inv_ex singular info", lambda: L.inv_ex(S0).info)
tr("inv_ex check_errors", lambda: L.inv_ex(S0, check_errors=True))
tr("LinAlgError is RuntimeError", lambda: issubclass(L.LinAlgError, RuntimeError))
tr("solve singular", lambda: L.solve(S0, torch.ones(2)))
tr("solve batch singular", lambda: L.solve(torch.stack([torch.eye(2), S0]), torch.ones(2, 2, 1)))
tr("solve shapes", lambda: L.solve(torch.eye(3), torch.ones(2, 2)))
tr("solve int", lambda: L.solve(i2, i2))
tr("solve dtypes", lambda: L.solve(torch.eye(2), torch.ones(2, dtype=torch.float64)))
tr("solve_ex info", lambda: L.solve_ex(torch.stack([torch.eye(2), S0]), torch.ones(2, 2)).info)
tr("cholesky not pd", lambda: L.cholesky(N))
tr("cholesky batch not pd", lambda: L.cholesky(torch.stack([torch.eye(2), N])))
tr("cholesky_ex info", lambda: L.cholesky_ex(torch.stack([torch.eye(2), N])).info)
tr("cholesky nonsquare", lambda: L.cholesky(R))
tr("cholesky int", lambda: L.cholesky(i2))
tr("torch.cholesky not pd", lambda: torch.cholesky(N))
tr("det int", lambda: L.det(i2))
tr("det nonsquare", lambda: L.det(R))
tr("det singular", lambda: L.det(S0))
tr("slogdet singular", lambda: L.slogdet(S0))
tr("slogdet nonsquare", lambda: L.slogdet(R))
tr("eigh nonsquare", lambda: L.eigh(R))
tr("eigh int", lambda: L.eigh(i2))
tr("eigh UPLO", lambda: L.eigh(N, UPLO="X"))
tr("svd int", lambda: L.svd(i2))
tr("svd 1d", lambda: L.svd(torch.ones(3)))
tr("qr mode", lambda: L.qr(R, mode="x"))
tr("qr 1d", lambda: L.qr(torch.ones(3)))
tr("lu_factor singular", lambda: L.lu_factor(S0))
tr("lu_factor_ex singular", lambda: L.lu_factor_ex(S0))
tr("matrix_power nonsquare", lambda: L.matrix_power(R, 2))
tr("matrix_power -1 singular", lambda: L.matrix_power(S0, -1))
tr("cross", lambda: L.cross(torch.ones(2), torch.ones(2)))
tr("multi_dot one", lambda: L.multi_dot([R]))
tr("multi_dot 3d", lambda: L.multi_dot([R, torch.ones(2, 3, 3)]))
tr("lstsq shapes", lambda: L.lstsq(R, torch.ones(3, 1)))
tr("lstsq driver", lambda: L.lstsq(R, torch.ones(2, 1), driver="foo"))
tr("solve_triangular nonsquare", lambda: L.solve_triangular(R, torch.ones(2, 1), upper=True))
tr("solve_triangular int", lambda: L.solve_triangular(i2, i2, upper=True))
tr("matrix_rank int", lambda: L.matrix_rank(i2))
tr("pinv int", lambda: L.pinv(i2))
tr("householder_product", lambda: L.householder_product(R.T, torch.ones(3)))
tr("cholesky_inverse nonsquare", lambda: torch.cholesky_inverse(R))
tr("lu_unpack pivots", lambda: torch.lu_unpack(torch.ones(2, 2), torch.tensor([3, 1], dtype=torch.int32)))
tr("cholesky_solve int", lambda: torch.cholesky_solve(i2, i2))
