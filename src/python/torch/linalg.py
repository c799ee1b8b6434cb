"""torch.linalg: the norms and products of torch/_ops_more.py, and the
decompositions and solvers over the LINALG rows of the op table
(LAPACK, src/kernels/cpu/ts-cpu-linalg.c, through torch._C._linalg).

Each function checks its arguments with PyTorch 1.13's messages, runs the
ATen ops 1.13 runs (linalg_lu_factor_ex, linalg_lu_solve, _linalg_svd,
_linalg_eigh, ...) with grad mode off, and records the node 1.13 records
(torch/_linalg_grad.py has the formulas). What 1.13 composes from other
ops (matrix_power, multi_dot, vecdot, cross) is composed here the same way,
so its nodes are the pieces'. The general eigensolver (eig, eigvals:
LAPACK's geev) is not modeled yet, and says so."""

import math
import warnings

import torch
from torch import _unmodeled
from torch import _linalg_grad as _grad
from torch._reduce import _return_type

__getattr__ = _unmodeled.module_getattr(__name__)

# TsLinalg.flags (ts-cpu-linalg.h)
_UPPER, _LEFT, _UNIT, _FULL, _VECTORS, _ADJOINT = 1, 2, 4, 8, 16, 32
_DRIVERS = {"gelsy": 0, "gelsd": 1, "gelss": 2, "gels": 3}
_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
          "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


class LinAlgError(RuntimeError):
    """PyTorch's torch.linalg.LinAlgError (torch._C._LinAlgError): a
    singular or indefinite matrix."""


LinAlgError.__name__ = "_LinAlgError"
LinAlgError.__qualname__ = "_LinAlgError"
LinAlgError.__module__ = "torch._C"
torch._C._LinAlgError = LinAlgError

_types = {}

# PyTorch 1.13's TORCH_WARN_ONCE texts for the deprecated torch.* forms
_DEPRECATED = {
    'triangular_solve':
        'torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B). (Triggered internally at  ./aten/src/ATen/native/BatchLinearAlgebra.cpp:2115.)',
    'cholesky':
        'torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH().\nThis transform will produce equivalent results for all valid (symmetric positive definite) inputs. (Triggered internally at  ./aten/src/ATen/native/BatchLinearAlgebra.cpp:1615.)',
    'qr':
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\nThe boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete') (Triggered internally at  ./aten/src/ATen/native/BatchLinearAlgebra.cpp:2349.)",
    'chain_matmul':
        'torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple parameters. (Triggered internally at  ./aten/src/ATen/native/LinearAlgebra.cpp:967.)',
    'lu':
        'torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots) (Triggered internally at  ./aten/src/ATen/native/BatchLinearAlgebra.cpp:1915.)',
    'lu_solve':
        'torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B) (Triggered internally at  ./aten/src/ATen/native/BatchLinearAlgebra.cpp:2072.)',
}
_warned = set()


def _deprecated(name):
    if name not in _warned:
        _warned.add(name)
        warnings.warn(_DEPRECATED[name], UserWarning, stacklevel=3)



def _rt(name, fields):
    """A torch.return_types.NAME builder: _rt(name, fields)(*values)"""
    if name not in _types:
        _types[name] = _return_type(name, fields)
        setattr(torch.return_types, name, _types[name])
    return lambda *values: _types[name](values)


def _scalar(t):
    return _NAMES.get(t.dtype._name, str(t.dtype))


def _check_float(A, fn):
    if not A.dtype.is_floating_point:
        raise RuntimeError("%s: Expected a floating point or complex tensor as input. Got %s" % (fn, _scalar(A)))
    if A.dtype not in (torch.float32, torch.float64):
        raise RuntimeError("%s: Low precision dtypes not supported. Got %s" % (fn, _scalar(A)))


def _check_matrix(A, fn, square=True, what="A"):
    if A.dim() < 2:
        raise RuntimeError("%s: The input tensor %s must have at least 2 dimensions." % (fn, what))
    if square and A.shape[-1] != A.shape[-2]:
        raise RuntimeError("%s: %s must be batches of square matrices, but they are %d by %d matrices"
                           % (fn, what, A.shape[-2], A.shape[-1]))


def _check_same_dtype(A, B, fn, a="A", b="B"):
    if A.dtype != B.dtype:
        raise RuntimeError("%s: Expected %s and %s to have the same dtype, but found %s of type %s and %s of type %s "
                           "instead" % (fn, a, b, a, _scalar(A), b, _scalar(B)))


def _no_out(out, qualname):
    """out= is not modeled for these yet: say so rather than ignore it"""
    if out is not None:
        raise _unmodeled.unsupported(qualname + "(..., out=...)")


def _lin(op, inputs, m=0, n=0, k=0, flags=0, driver=0, rcond=0.0):
    with torch.no_grad():
        return torch._C._linalg(op, list(inputs), m, n, k, flags, driver, float(rcond))


def _first_error(info, batched):
    """(batch index, code) of the first nonzero info, or None: a host
    synchronization, as at::_linalg_check_errors. With --no-data there are
    no infos to read: the copy alone (the timeline is the same), and the
    check passes (docs/no-data.md)"""
    if torch._C._no_data():
        info.cpu()
        return None
    codes = info.reshape(-1).tolist()
    for i, c in enumerate(codes):
        if c != 0:
            return ("(Batch element %d): " % i if batched else ""), c
    return None


def _raise_singular(info, A, fn, what, error=None):
    err = _first_error(info, A.dim() > 2)
    if err is not None:
        prefix, code = err
        raise (error or LinAlgError)(what(fn + ": " + prefix, code))


def _inv_message(head, code):
    return (head + "The diagonal element %d is zero, the inversion could not be completed because the input matrix "
            "is singular." % code)


def _chol_message(head, code):
    return (head + "The factorization could not be completed because the input is not positive-definite (the "
            "leading minor of order %d is not positive-definite)." % code)


def _solve_message(head, code):
    return head + "The solver failed because the input matrix is singular."


def _eye_like(A):
    n = A.shape[-1]
    return torch.eye(n, dtype=A.dtype, device=A.device).expand(A.shape).contiguous()


# -- LU -------------------------------------------------------------------

def _lu_factor_ex(A, fn):
    _check_float(A, fn)
    _check_matrix(A, fn, square=False)
    LU, pivots, info = _lin("linalg_lu_factor_ex", [A], A.shape[-2], A.shape[-1])
    return LU, pivots, info


def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    _no_out(out, "torch.linalg.lu_factor_ex")
    if not pivot:
        raise _unmodeled.unsupported("torch.linalg.lu_factor_ex(pivot=False)", "LAPACK always pivots on a CPU")
    LU, pivots, info = _lu_factor_ex(A, "torch.linalg.lu_factor_ex")
    _grad._record("LinalgLuFactorExBackward0", _lu_factor_grad, [A], [LU], A=A, LU=LU, pivots=pivots)
    if check_errors:
        _raise_singular(info, A, "torch.linalg.lu_factor_ex", _lu_message, RuntimeError)
    return _rt("linalg_lu_factor_ex", ("LU", "pivots", "info"))(LU, pivots, info)


def _lu_message(head, code):
    return (head + "U[%d,%d] is zero and using it on lu_solve would result in a division by zero. If you still want "
            "to perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
            % (code, code))


def lu_factor(A, *, pivot=True, out=None):
    _no_out(out, "torch.linalg.lu_factor")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    # a plain RuntimeError in 1.13 (TORCH_CHECK, not the LinAlgError check)
    _raise_singular(info, A, "torch.linalg.lu_factor", _lu_message, RuntimeError)
    return _rt("linalg_lu_factor", ("LU", "pivots"))(LU, pivots)


def _lu_factor_grad(s, g):
    raise _unmodeled.unsupported("the derivative of torch.linalg.lu_factor (LinalgLuFactorExBackward0)")


def _permutation(pivots, m, dtype, device):
    """P of A = P L U from LAPACK's row interchanges (a host read)"""
    batch = pivots.shape[:-1]
    if torch._C._no_data():
        # no pivots to read: P's shape, memory and copy without its values
        return torch.eye(m, dtype=dtype).to(device).expand(tuple(batch) + (m, m)).clone()
    flat = pivots.reshape(-1, pivots.shape[-1]).tolist() if pivots.numel() else [[] for _ in range(max(1, math.prod(batch)))]
    mats = []
    for piv in flat:
        perm = list(range(m))
        for i, p in enumerate(piv):
            if p < 1 or p > m:
                raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you "
                                   "properly pass the result of lu_factor?")
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
        rows = [[1.0 if perm[j] == i else 0.0 for j in range(m)] for i in range(m)]
        mats.append(rows)
    return torch.tensor(mats, dtype=dtype, device=device).reshape(tuple(batch) + (m, m))


def _unpack(LU, pivots, unpack_data=True, unpack_pivots=True):
    m, n = LU.shape[-2], LU.shape[-1]
    k = min(m, n)
    with torch.no_grad():
        P = _permutation(pivots, m, LU.dtype, LU.device) if unpack_pivots else LU.new_empty((0,))
        if unpack_data:
            eye = torch.eye(m, k, dtype=LU.dtype, device=LU.device)
            L = LU[..., :, :k].tril(-1) + eye
            U = LU[..., :k, :].triu()
        else:
            L = LU.new_empty((0,))
            U = LU.new_empty((0,))
    return P, L, U


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    _no_out(out, "torch.lu_unpack")
    P, L, U = _unpack(LU_data, LU_pivots, unpack_data, unpack_pivots)
    if unpack_data:
        k = min(LU_data.shape[-2], LU_data.shape[-1])
        _grad._record("LuUnpackBackward0", _lu_unpack_grad, [LU_data], [L, U], k=k, shape=tuple(LU_data.shape))
    return _rt("lu_unpack", ("P", "L", "U"))(P, L, U)


def _lu_unpack_grad(s, gL, gU):
    m, n = s["shape"][-2], s["shape"][-1]
    k = s["k"]
    # LU holds L's strict lower part and U's upper part
    top = gL[..., :k, :k].tril(-1) + gU[..., :, :k].triu()
    right = gU[..., :, k:]
    bottom = gL[..., k:, :]
    g = torch.cat([top, right], -1) if n > k else top
    if m > k:
        g = torch.cat([g, bottom], -2)
    return (g,)


def lu(A, *, pivot=True, out=None):
    _no_out(out, "torch.linalg.lu")
    LU, pivots, info = _lu_factor_ex(A, "linalg.lu")
    P, L, U = _unpack(LU, pivots)
    _grad._record("LinalgLuBackward0", _lu_grad, [A], [L, U], L=L, U=U, P=P)
    return _rt("linalg_lu", ("P", "L", "U"))(P, L, U)


def _lu_grad(s, gL, gU):
    # square A = P L U: gA = P L^{-H} [tril(L^H gL, -1) + triu(gU U^H)] U^{-H}
    L, U, P = s["L"], s["U"], s["P"]
    if L.shape[-1] != U.shape[-1] or L.shape[-2] != L.shape[-1]:
        raise _unmodeled.unsupported("the derivative of torch.linalg.lu of a rectangular matrix")
    phi = (_grad._mT(L) @ gL).tril(-1) + (gU @ _grad._mT(U)).triu()
    gA = solve_triangular(_grad._mT(L), phi, upper=True, left=True, unitriangular=True)
    gA = solve_triangular(_grad._mT(U), gA, upper=False, left=False)
    return (P @ gA,)


def _lu_solve_op(LU, pivots, B, adjoint=False):
    n, k = LU.shape[-1], B.shape[-1]
    batch = torch.broadcast_shapes(LU.shape[:-2], B.shape[:-2])
    LUb = LU.expand(tuple(batch) + LU.shape[-2:])
    pb = pivots.expand(tuple(batch) + pivots.shape[-1:])
    Bb = B.expand(tuple(batch) + B.shape[-2:])
    return _lin("linalg_lu_solve", [LUb, pb, Bb], n, n, k, _ADJOINT if adjoint else 0)[0]


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    _no_out(out, "torch.linalg.lu_solve")
    _check_float(LU, "linalg.lu_solve")
    _check_same_dtype(LU, B, "linalg.lu_solve", "LU", "B")
    if not left:
        # X A = B  <=>  A^T X^T = B^T
        Xt = lu_solve(LU, pivots, B.transpose(-2, -1), left=True, adjoint=not adjoint)
        return Xt.transpose(-2, -1)
    if LU.shape[-1] != B.shape[-2]:
        raise RuntimeError("linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B (%dx%d and %dx%d)"
                           % (LU.shape[-2], LU.shape[-1], B.shape[-2], B.shape[-1]))
    X = _lu_solve_op(LU, pivots, B, adjoint)
    _grad._record("LinalgLuSolveBackward0", _lu_solve_grad, [B], [X], LU=LU, pivots=pivots, adjoint=adjoint,
                  B_shape=tuple(B.shape))
    return X


def _lu_solve_grad(s, g):
    # gB = A^{-H} g; the gradient of LU is not modeled (B's only)
    gB = _lu_solve_op(s["LU"], s["pivots"], g, not s["adjoint"])
    return (_grad._sum_to(gB, s["B_shape"]),)


# -- solve and inv ----------------------------------------------------------

def _solve_ex(A, B, fn, left=True):
    _check_float(A, fn)
    _check_same_dtype(A, B, fn)
    _check_matrix(A, fn)
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if not left:
        if vector:
            raise RuntimeError("%s: Vector broadcasting of the left hand side is not supported for left=False. In "
                               "this case linalg.solve is equivalent to B / A.squeeze(-1)" % fn)
        X, info = _solve_ex(A.transpose(-2, -1), B.transpose(-2, -1), fn, True)[:2]
        return X.transpose(-2, -1), info, False
    Bm = B.unsqueeze(-1) if vector else B
    if A.shape[-1] != Bm.shape[-2]:
        raise RuntimeError("linalg.solve: Incompatible shapes of A and B for the equation AX = B (%dx%d and %dx%d)"
                           % (A.shape[-2], A.shape[-1], Bm.shape[-2], Bm.shape[-1]))
    batch = tuple(torch.broadcast_shapes(A.shape[:-2], Bm.shape[:-2]))
    LU, pivots, info = _lin("linalg_lu_factor_ex", [A.expand(batch + A.shape[-2:])], A.shape[-1], A.shape[-1])
    X = _lin("linalg_lu_solve", [LU, pivots, Bm.expand(batch + Bm.shape[-2:])], A.shape[-1], A.shape[-1],
             Bm.shape[-1])[0]
    if vector:
        X = X.squeeze(-1)
    return X, info, vector


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    _no_out(out, "torch.linalg.solve_ex")
    X, info, vector = _solve_ex(A, B, "linalg.solve", left)
    _record_solve(A, B, X, vector, left)
    if check_errors:
        _raise_singular(info, A, "torch.linalg.solve_ex", _solve_message)
    return _rt("linalg_solve_ex", ("result", "info"))(X, info)


def _record_solve(A, B, X, vector, left):
    if not left:
        return _grad._record("LinalgSolveExBackward0", _solve_right_grad, [A, B], [X], A=A, X=X,
                             A_shape=tuple(A.shape), B_shape=tuple(B.shape), needs=(A.requires_grad, B.requires_grad))
    _grad._record("LinalgSolveExBackward0", _grad.solve, [A, B], [X], A=A, X=X, vector=vector,
                  A_shape=tuple(A.shape), B_shape=tuple(B.shape), needs=(A.requires_grad, B.requires_grad))


def _solve_right_grad(s, g):
    # X A = B: gB = g A^{-H}, gA = -X^H gB
    A, X = s["A"], s["X"]
    gB = solve(_grad._mT(A), g, left=False)
    gA = -(_grad._mT(X) @ gB)
    return (_grad._sum_to(gA, s["A_shape"]) if s["needs"][0] else None,
            _grad._sum_to(gB, s["B_shape"]) if s["needs"][1] else None)


def solve(A, B, *, left=True, out=None):
    _no_out(out, "torch.linalg.solve")
    X, info, vector = _solve_ex(A, B, "linalg.solve", left)
    _record_solve(A, B, X, vector, left)
    _raise_singular(info, A, "torch.linalg.solve", _solve_message)
    return X


def inv_ex(A, *, check_errors=False, out=None):
    _no_out(out, "torch.linalg.inv_ex")
    _check_float(A, "linalg.inv")
    _check_matrix(A, "linalg.inv")
    n = A.shape[-1]
    LU, pivots, info = _lin("linalg_lu_factor_ex", [A], n, n)
    Ainv = _lin("linalg_lu_solve", [LU, pivots, _eye_like(A)], n, n, n)[0]
    _grad._record("LinalgInvExBackward0", _grad.inv, [A], [Ainv], inverse=Ainv, A=A)
    if check_errors:
        _raise_singular(info, A, "linalg.inv_ex", _inv_message)
    return _rt("linalg_inv_ex", ("inverse", "info"))(Ainv, info)


def inv(A, *, out=None):
    _no_out(out, "torch.linalg.inv")
    Ainv, info = inv_ex(A)
    _raise_singular(info, A, "linalg.inv", _inv_message)
    return Ainv


# -- determinants -------------------------------------------------------------

def _lu_det_parts(A, fn):
    _check_float(A, fn)
    _check_matrix(A, fn)
    n = A.shape[-1]
    # ATen factors A^T when A is real and contiguous (LAPACK reads it in
    # place then, and det(A^T) = det(A)): the LU, and so the last bits of
    # the determinant, are A^T's (det([[1, 2], [3, 4]]) is -2 exactly, A's
    # own LU gives -1.9999999)
    LU, pivots, info = _lin("linalg_lu_factor_ex", [A.mT if _factors_transpose(A) else A], n, n)
    with torch.no_grad():
        diag = LU.diagonal(dim1=-2, dim2=-1)
        swaps = (pivots != torch.arange(1, n + 1, dtype=torch.int32, device=A.device)).sum(-1)
        perm_sign = 1.0 - 2.0 * (swaps % 2).to(A.dtype)
    return LU, pivots, diag, perm_sign


def _factors_transpose(A):
    return A.is_contiguous() and not A.is_complex()


def _inverse_for_grad(A, LU, pivots):
    if not (torch.is_grad_enabled() and A.requires_grad):
        return None
    inverse = _lin("linalg_lu_solve", [LU, pivots, _eye_like(A)], A.shape[-1], A.shape[-1], A.shape[-1])[0]
    return inverse.mT if _factors_transpose(A) else inverse


def det(A, *, out=None):
    _no_out(out, "torch.linalg.det")
    LU, pivots, diag, perm_sign = _lu_det_parts(A, "linalg.det")
    with torch.no_grad():
        d = diag.prod(-1) * perm_sign
    _grad._record("LinalgDetBackward0", _grad.det, [A], [d], det=d, inverse=_inverse_for_grad(A, LU, pivots), A=A)
    return d


def slogdet(A, *, out=None):
    _no_out(out, "torch.linalg.slogdet")
    LU, pivots, diag, perm_sign = _lu_det_parts(A, "linalg.slogdet")
    with torch.no_grad():
        sign = perm_sign * diag.sign().prod(-1)
        logabsdet = diag.abs().log().sum(-1)
    _grad._record("LinalgSlogdetBackward0", _grad.slogdet, [A], [sign, logabsdet],
                  inverse=_inverse_for_grad(A, LU, pivots), A=A)
    return _rt("linalg_slogdet", ("sign", "logabsdet"))(sign, logabsdet)


def _legacy_slogdet(A):
    sign, logabsdet = slogdet(A)
    return _rt("slogdet", ("sign", "logabsdet"))(sign, logabsdet)


def logdet(A):
    sign, logabsdet = slogdet(A)
    return torch.where(sign == -1, torch.full_like(logabsdet, float("nan")), logabsdet)


# -- Cholesky -------------------------------------------------------------

def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    _no_out(out, "torch.linalg.cholesky_ex")
    return _cholesky_ex(A, upper, check_errors, "linalg.cholesky", "linalg_cholesky_ex", "LinalgCholeskyExBackward0")


def _cholesky_ex(A, upper, check_errors, fn, op, node):
    _check_float(A, fn)
    _check_matrix(A, fn)
    L, info = _lin(op, [A], A.shape[-1], A.shape[-1], 0, _UPPER if upper else 0)
    _grad._record(node, _grad.cholesky, [A], [L], L=L, upper=upper)
    if check_errors:
        _raise_singular(info, A, fn, _chol_message)
    return _rt("linalg_cholesky_ex", ("L", "info"))(L, info)


def cholesky(A, *, upper=False, out=None):
    _no_out(out, "torch.linalg.cholesky")
    L, info = cholesky_ex(A, upper=upper)
    _raise_singular(info, A, "linalg.cholesky", _chol_message)
    return L


def _legacy_cholesky(A, upper=False):
    _deprecated("cholesky")
    L, info = _cholesky_ex(A, upper, False, "cholesky", "cholesky", "CholeskyBackward0")
    _raise_singular(info, A, "cholesky", _chol_message)
    return L


def _cholesky_solve(B, L, upper=False):
    _check_same_dtype(B, L, "cholesky_solve", "b", "A")
    if B.dim() < 2 or L.dim() < 2:
        raise RuntimeError("b should have at least 2 dimensions, but has %d dimensions instead" % B.dim())
    if not B.dtype.is_floating_point:
        raise RuntimeError("\"cholesky_solve_cpu\" not implemented for '%s'" % _scalar(B))
    batch = tuple(torch.broadcast_shapes(B.shape[:-2], L.shape[:-2]))
    n, k = L.shape[-1], B.shape[-1]
    X = _lin("_cholesky_solve_helper", [B.expand(batch + B.shape[-2:]), L.expand(batch + L.shape[-2:])], n, n, k,
             _UPPER if upper else 0)[0]
    _grad._record("CholeskySolveBackward0", _grad.cholesky_solve, [B, L], [X], L=L, X=X, upper=upper,
                  B_shape=tuple(B.shape), L_shape=tuple(L.shape), needs=(B.requires_grad, L.requires_grad))
    return X


def _cholesky_inverse(L, upper=False, *, out=None):
    _no_out(out, "torch.cholesky_inverse")
    _check_float(L, "cholesky_inverse")
    _check_matrix(L, "cholesky_inverse")
    X = _lin("cholesky_inverse", [L], L.shape[-1], L.shape[-1], 0, _UPPER if upper else 0)[0]
    _grad._record("CholeskyInverseBackward0", _grad.cholesky_inverse, [L], [X], L=L, X=X, upper=upper)
    return X


# -- triangular solves ---------------------------------------------------------

def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    _no_out(out, "torch.linalg.solve_triangular")
    fn = "linalg.solve_triangular"
    if not A.dtype.is_floating_point:
        raise RuntimeError("\"triangular_solve_cpu\" not implemented for '%s'" % _scalar(A))
    _check_same_dtype(A, B, fn)
    _check_matrix(A, fn)
    if B.dim() < 2:
        raise RuntimeError("%s: The input tensor B must have at least 2 dimensions." % fn)
    n = A.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError("%s: Incompatible shapes of A and B for the equation %s (%dx%d and %dx%d)"
                           % (fn, "AX = B" if left else "XA = B", A.shape[-2], A.shape[-1], B.shape[-2], B.shape[-1]))
    batch = tuple(torch.broadcast_shapes(A.shape[:-2], B.shape[:-2]))
    flags = (_UPPER if upper else 0) | (_LEFT if left else 0) | (_UNIT if unitriangular else 0)
    X = _lin("linalg_solve_triangular", [A.expand(batch + A.shape[-2:]), B.expand(batch + B.shape[-2:])],
             B.shape[-2], n, B.shape[-1], flags)[0]
    _grad._record("LinalgSolveTriangularBackward0", _grad.solve_triangular, [A, B], [X], A=A, X=X, upper=upper,
                  left=left, unit=unitriangular, A_shape=tuple(A.shape), B_shape=tuple(B.shape),
                  needs=(A.requires_grad, B.requires_grad))
    return X


def _triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """torch.triangular_solve: (solution, cloned_coefficient); its own op"""
    _no_out(out, "torch.triangular_solve")
    _deprecated("triangular_solve")
    if not A.dtype.is_floating_point:
        raise RuntimeError("\"triangular_solve_cpu\" not implemented for '%s'" % _scalar(A))
    _check_same_dtype(b, A, "triangular_solve", "b", "A")
    Aeff = A.transpose(-2, -1) if transpose else A
    up = upper != transpose
    batch = tuple(torch.broadcast_shapes(A.shape[:-2], b.shape[:-2]))
    flags = (_UPPER if up else 0) | _LEFT | (_UNIT if unitriangular else 0)
    X = _lin("triangular_solve", [Aeff.expand(batch + A.shape[-2:]), b.expand(batch + b.shape[-2:])],
             b.shape[-2], A.shape[-1], b.shape[-1], flags)[0]
    with torch.no_grad():
        M = A.expand(batch + A.shape[-2:]).clone()
    _grad._record("TriangularSolveBackward0", _tri_legacy_grad, [b, A], [X], A=A, X=X, upper=upper,
                  transpose=transpose, unit=unitriangular, A_shape=tuple(A.shape), B_shape=tuple(b.shape),
                  needs=(b.requires_grad, A.requires_grad))
    return _rt("triangular_solve", ("solution", "cloned_coefficient"))(X, M)


def _tri_legacy_grad(s, g):
    A, X, transpose = s["A"], s["X"], s["transpose"]
    Aeff = A.transpose(-2, -1) if transpose else A
    up = s["upper"] != transpose
    s2 = dict(A=Aeff, X=X, upper=up, left=True, unit=s["unit"], A_shape=tuple(Aeff.shape), B_shape=s["B_shape"],
              needs=(True, s["needs"][0]))
    gA, gb = _grad.solve_triangular(s2, g)
    if transpose:
        gA = gA.transpose(-2, -1)
    return (gb, _grad._sum_to(gA, s["A_shape"]) if s["needs"][1] else None)


# -- QR -------------------------------------------------------------------

def qr(A, mode="reduced", *, out=None):
    _no_out(out, "torch.linalg.qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError("qr received unrecognized mode '%s' but expected one of 'reduced' (default), 'r', or "
                           "'complete'" % mode)
    _check_float(A, "linalg.qr")
    _check_matrix(A, "linalg.qr", square=False)
    flags = (_FULL if mode == "complete" else 0) | (0 if mode == "r" else _VECTORS)
    R, Q = _lin("linalg_qr", [A], A.shape[-2], A.shape[-1], 0, flags)
    if mode == "r":
        _grad._record("LinalgQrBackward0", lambda s, gR: _grad.qr(s, None, gR), [A], [R], Q=Q, R=R, mode=mode)
    else:
        _grad._record("LinalgQrBackward0", _grad.qr, [A], [Q, R], Q=Q, R=R, mode=mode)
    return _rt("linalg_qr", ("Q", "R"))(Q, R)


def _legacy_qr(A, some=True, *, out=None):
    _no_out(out, "torch.qr")
    _deprecated("qr")
    Q, R = qr(A, "reduced" if some else "complete")
    return _rt("qr", ("Q", "R"))(Q, R)


def _geqrf(A, *, out=None):
    _no_out(out, "torch.geqrf")
    _check_float(A, "geqrf")
    _check_matrix(A, "geqrf", square=False)
    a, tau = _lin("geqrf", [A], A.shape[-2], A.shape[-1])
    return _rt("geqrf", ("a", "tau"))(a, tau)


def householder_product(A, tau, *, out=None):
    _no_out(out, "torch.linalg.householder_product")
    fn = "torch.linalg.householder_product"
    _check_float(A, "linalg.householder_product")
    if A.dim() < 2:
        raise RuntimeError("%s: input must have at least 2 dimensions." % fn)
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError("%s: input.shape[-2] must be greater than or equal to input.shape[-1]" % fn)
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError("%s: input.shape[-1] must be greater than or equal to tau.shape[-1]" % fn)
    _check_same_dtype(A, tau, fn, "input", "tau")
    Q = _lin("linalg_householder_product", [A, tau], A.shape[-2], A.shape[-1], tau.shape[-1])[0]
    _grad._record("LinalgHouseholderProductBackward0", _householder_grad, [A, tau], [Q])
    return Q


def _householder_grad(s, g):
    raise _unmodeled.unsupported("the derivative of torch.linalg.householder_product "
                                 "(LinalgHouseholderProductBackward0)")


# -- SVD and eigh -------------------------------------------------------------

def _svd(A, full_matrices, compute_uv, fn):
    _check_float(A, fn)
    _check_matrix(A, fn, square=False)
    flags = (_FULL if full_matrices else 0) | (_VECTORS if compute_uv else 0)
    S, U, Vh = _lin("_linalg_svd", [A], A.shape[-2], A.shape[-1], 0, flags)
    return U, S, Vh


def svd(A, full_matrices=True, *, driver=None, out=None):
    _no_out(out, "torch.linalg.svd")
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER "
                           "backend.")
    U, S, Vh = _svd(A, full_matrices, True, "linalg.svd")
    _grad._record("LinalgSvdBackward0", _grad.svd, [A], [U, S, Vh], U=U, S=S, Vh=Vh, full=full_matrices)
    return _rt("linalg_svd", ("U", "S", "Vh"))(U, S, Vh)


def svdvals(A, *, driver=None, out=None):
    # 1.13 computes the vectors too when A requires grad, for the backward
    _no_out(out, "torch.linalg.svdvals")
    grad = torch.is_grad_enabled() and A.requires_grad
    U, S, Vh = _svd(A, False, grad, "linalg.svd")
    _grad._record("LinalgSvdBackward0", _grad.svdvals, [A], [S], U=U, Vh=Vh)
    return S


def _legacy_svd(A, some=True, compute_uv=True, *, out=None):
    _no_out(out, "torch.svd")
    if compute_uv:
        U, S, Vh = svd(A, full_matrices=not some)
        V = Vh.transpose(-2, -1)
    else:
        S = svdvals(A)
        m, n = A.shape[-2], A.shape[-1]
        U = torch.zeros(tuple(A.shape[:-2]) + (m, m), dtype=A.dtype, device=A.device)
        V = torch.zeros(tuple(A.shape[:-2]) + (n, n), dtype=A.dtype, device=A.device)
    return _rt("svd", ("U", "S", "V"))(U, S, V)


def _eigh(A, UPLO, compute_v, fn):
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError("Expected UPLO argument to be 'L' or 'U', but got %s" % UPLO)
    if not A.dtype.is_floating_point:
        raise RuntimeError("\"linalg_eigh_cpu\" not implemented for '%s'" % _scalar(A))
    _check_float(A, fn)
    _check_matrix(A, fn)
    flags = (_UPPER if UPLO.upper() == "U" else 0) | (_VECTORS if compute_v else 0)
    L, V = _lin("_linalg_eigh", [A], A.shape[-1], A.shape[-1], 0, flags)
    return L, V


def eigh(A, UPLO="L", *, out=None):
    _no_out(out, "torch.linalg.eigh")
    L, V = _eigh(A, UPLO, True, "linalg.eigh")
    _grad._record("LinalgEighBackward0", _grad.eigh, [A], [L, V], L=L, V=V, compute_v=True)
    return _rt("linalg_eigh", ("eigenvalues", "eigenvectors"))(L, V)


def eigvalsh(A, UPLO="L", *, out=None):
    _no_out(out, "torch.linalg.eigvalsh")
    grad = torch.is_grad_enabled() and A.requires_grad
    L, V = _eigh(A, UPLO, grad, "linalg.eigvalsh")
    _grad._record("LinalgEighBackward0", _eigvalsh_grad, [A], [L], V=V)
    return L


def _eigvalsh_grad(s, gL):
    V = s["V"]
    return (V @ (gL.unsqueeze(-1) * _grad._mT(V)),)


def eig(A, *, out=None):
    _no_out(out, "torch.linalg.eig")
    raise _unmodeled.unsupported("torch.linalg.eig", "LAPACK's general eigensolver (geev) is not wired in yet; "
                                 "torch.linalg.eigh covers symmetric matrices")


def eigvals(A, *, out=None):
    _no_out(out, "torch.linalg.eigvals")
    raise _unmodeled.unsupported("torch.linalg.eigvals", "LAPACK's general eigensolver (geev) is not wired in "
                                 "yet; torch.linalg.eigvalsh covers symmetric matrices")


# -- least squares, rank, pseudo-inverse ----------------------------------------

def lstsq(A, B, rcond=None, *, driver=None, out=None):
    _no_out(out, "torch.linalg.lstsq")
    fn = "torch.linalg.lstsq"
    _check_float(A, "linalg.lstsq")
    _check_same_dtype(A, B, "torch.linalg.lstsq", "input", "other")
    if A.dim() < 2:
        raise RuntimeError("%s: input must have at least 2 dimensions." % fn)
    vector = B.dim() == A.dim() - 1
    Bm = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != Bm.shape[-2]:
        raise RuntimeError("%s: input.size(-2) should match other.size(-2)" % fn)
    # the CPU's LAPACK has four drivers, cuSOLVER/MAGMA gels alone
    cuda = A.device.type == "cuda"
    if driver is None:
        driver = "gels" if cuda else "gelsy"
    if cuda and driver != "gels":
        raise RuntimeError("%s: `driver` other than `gels` is not supported on CUDA" % fn)
    if driver not in _DRIVERS:
        raise RuntimeError("%s: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)" % fn)
    m, n, k = A.shape[-2], A.shape[-1], Bm.shape[-1]
    if rcond is None:
        rcond = torch.finfo(A.dtype).eps * max(m, n)
    batch = tuple(torch.broadcast_shapes(A.shape[:-2], Bm.shape[:-2]))
    X, rank, sv = _lin("linalg_lstsq", [A.expand(batch + A.shape[-2:]), Bm.expand(batch + Bm.shape[-2:])], m, n, k,
                       0, _DRIVERS[driver], rcond)
    with torch.no_grad():
        if m > n and driver != "gelsy":
            resid = ((A.expand(batch + A.shape[-2:]) @ X - Bm) ** 2).sum(-2)
        else:
            resid = A.new_empty((0,))
    if vector:
        X = X.squeeze(-1)
    _grad._record("LinalgLstsqBackward0", _lstsq_grad, [A, B], [X], A=A, B=B, needs=(A.requires_grad, B.requires_grad))
    return _rt("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))(X, resid, rank, sv)


def _lstsq_grad(s, g):
    # X = pinv(A) B
    A, B = s["A"], s["B"]
    vector = B.dim() == A.dim() - 1
    gm = g.unsqueeze(-1) if vector else g
    Bm = B.unsqueeze(-1) if vector else B
    with torch.enable_grad():
        Ad = A.detach().requires_grad_()
        Bd = Bm.detach().requires_grad_()
        X = pinv(Ad) @ Bd
        gA, gB = torch.autograd.grad(X, (Ad, Bd), gm)
    return (gA if s["needs"][0] else None, (gB.squeeze(-1) if vector else gB) if s["needs"][1] else None)


def _tolerances(A, atol, rtol, S_max, fn):
    m, n = A.shape[-2], A.shape[-1]
    if rtol is None:
        rtol = torch.finfo(A.dtype).eps * max(m, n) if atol is None or (not isinstance(atol, torch.Tensor) and
                                                                         atol <= 0) else 0.0
    atol = 0.0 if atol is None else atol
    return torch.maximum(torch.as_tensor(atol, dtype=A.dtype, device=A.device).expand(S_max.shape),
                         rtol * S_max) if isinstance(atol, torch.Tensor) or isinstance(rtol, torch.Tensor) else \
        (S_max * rtol).clamp_min(atol)


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    _no_out(out, "torch.linalg.matrix_rank")
    if A.dtype not in (torch.float32, torch.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    _check_matrix(A, "linalg.matrix_rank", square=False)
    if tol is not None:
        atol, rtol = tol, 0.0
    with torch.no_grad():
        S = eigvalsh(A).abs() if hermitian else svdvals(A)
        if S.shape[-1] == 0:
            return torch.zeros(S.shape[:-1], dtype=torch.int64, device=A.device)
        S_max = S.amax(-1, keepdim=True)
        tol_ = _tolerances(A, atol, rtol, S_max, "linalg.matrix_rank")
        return (S > tol_).sum(-1)


def pinv(A, rcond=None, hermitian=False, *, atol=None, rtol=None, out=None):
    _no_out(out, "torch.linalg.pinv")
    if not A.dtype.is_floating_point or A.dim() < 2:
        raise RuntimeError("linalg.pinv(%s{%s}): expected a tensor with 2 or more dimensions of float, double, cfloat "
                           "or cdouble types" % (_scalar(A), list(A.shape)))
    _check_float(A, "linalg.pinv")
    if rcond is not None:
        rtol = rcond
    with torch.no_grad():
        if hermitian:
            L, V = eigh(A)
            S_max = L.abs().amax(-1, keepdim=True)
            tol_ = _tolerances(A, atol, rtol, S_max, "linalg.pinv")
            Linv = torch.where(L.abs() > tol_, 1 / L, torch.zeros_like(L))
            P = (V * Linv.unsqueeze(-2)) @ V.transpose(-2, -1)
        else:
            U, S, Vh = svd(A, full_matrices=False)
            S_max = S.amax(-1, keepdim=True) if S.shape[-1] else S
            tol_ = _tolerances(A, atol, rtol, S_max, "linalg.pinv")
            Sinv = torch.where(S > tol_, 1 / S, torch.zeros_like(S))
            P = (Vh.transpose(-2, -1) * Sinv.unsqueeze(-2)) @ U.transpose(-2, -1)
    _grad._record("LinalgPinvBackward0", _grad.pinv, [A], [P], pinv=P, A=A)
    return P


def _pinverse(A, rcond=1e-15):
    return pinv(A, rtol=rcond)


# -- composites: powers, products, cross, vecdot ---------------------------------

def matrix_power(A, n, *, out=None):
    _no_out(out, "torch.linalg.matrix_power")
    fn = "linalg.matrix_power"
    _check_matrix(A, fn)
    if n == 0:
        return torch.eye(A.shape[-1], dtype=A.dtype, device=A.device).expand(A.shape).clone()
    if n < 0:
        A = inv(A)
        n = -n
    if n == 1:
        return A.clone()
    if n == 2:
        return A @ A
    if n == 3:
        return (A @ A) @ A
    # binary decomposition, as at::linalg_matrix_power
    z = None
    result = None
    while n > 0:
        z = A if z is None else z @ z
        if n % 2 == 1:
            result = z if result is None else result @ z
        n //= 2
    return result


def multi_dot(tensors, *, out=None):
    _no_out(out, "torch.linalg.multi_dot")
    n = len(tensors)
    if n < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got %d" % n)
    for i, t in enumerate(tensors):
        if i == 0 and t.dim() not in (1, 2):
            raise RuntimeError("multi_dot(): the first tensor must be 1D or 2D but got %dD" % t.dim())
        if i == n - 1 and t.dim() not in (1, 2):
            raise RuntimeError("multi_dot(): the last tensor must be 1D or 2D but got %dD" % t.dim())
        if 0 < i < n - 1 and t.dim() != 2:
            raise RuntimeError("multi_dot(): tensor %d must be 2D but got %dD" % (i, t.dim()))
    first_vec, last_vec = tensors[0].dim() == 1, tensors[-1].dim() == 1
    mats = list(tensors)
    if first_vec:
        mats[0] = mats[0].unsqueeze(0)
    if last_vec:
        mats[-1] = mats[-1].unsqueeze(-1)
    for i in range(n - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[0]:
            raise RuntimeError("multi_dot(): tensors %d and %d with shapes %s and %s cannot be multiplied"
                               % (i, i + 1, list(mats[i].shape), list(mats[i + 1].shape)))
    if n == 2:
        out_ = mats[0].mm(mats[1])
    else:
        out_ = _chain(mats, _order(mats), 0, n - 1)
    # 1.13 views the product into its result's shape, vectors or not
    if first_vec and last_vec:
        return out_.view(())
    if first_vec or last_vec:
        return out_.view(-1)
    return out_.view(tuple(out_.shape))


def _order(mats):
    """The cheapest parenthesization (at::linalg_multi_dot's dynamic program)"""
    n = len(mats)
    p = [mats[0].shape[0]] + [m.shape[1] for m in mats]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j] = q
                    split[i][j] = k
    return split


def _chain(mats, split, i, j):
    if i == j:
        return mats[i]
    k = split[i][j]
    return _chain(mats, split, i, k).mm(_chain(mats, split, k + 1, j))


def _chain_matmul(*matrices, out=None):
    _no_out(out, "torch.chain_matmul")
    _deprecated("chain_matmul")
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = matrices[0]
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(list(matrices))


def cross(input, other, *, dim=-1, out=None):
    _no_out(out, "torch.linalg.cross")
    a, b = torch.broadcast_tensors(input, other)
    if a.shape[dim] != 3:
        raise RuntimeError("linalg.cross: inputs dimension %d must have length 3. Got %d and %d"
                           % (dim, input.shape[dim], other.shape[dim]))
    with torch.no_grad():
        out_ = _cross(a, b, dim)
    _grad._record("LinalgCrossBackward0", _cross_grad, [input, other], [out_], a=input, b=other, dim=dim)
    return out_


def _cross(a, b, dim):
    a0, a1, a2 = a.unbind(dim)
    b0, b1, b2 = b.unbind(dim)
    return torch.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim)


def _cross_grad(s, g):
    # d(a x b) = da x b + a x db: ga = b x g, gb = g x a
    a, b, dim = s["a"], s["b"], s["dim"]
    ga = _cross(*torch.broadcast_tensors(b, g), dim) if a.requires_grad else None
    gb = _cross(*torch.broadcast_tensors(g, a), dim) if b.requires_grad else None
    return (_grad._sum_to(ga, a.shape) if ga is not None else None,
            _grad._sum_to(gb, b.shape) if gb is not None else None)


def _install(ops):
    g = globals()
    g["vector_norm"] = ops["vector_norm"]
    g["matrix_norm"] = ops["matrix_norm"]
    g["norm"] = ops["linalg_norm"]
    g["vecdot"] = lambda x, y, *, dim=-1: (x * y).sum(dim)
    g["matmul"] = lambda a, b: a @ b
    g["diagonal"] = lambda A, *, offset=0, dim1=-2, dim2=-1: ops["diagonal"](A, offset, dim1, dim2)
    T = torch.Tensor
    # the legacy torch.* functions and their Tensor methods
    legacy = {
        "inverse": inv, "det": det, "logdet": logdet, "slogdet": _legacy_slogdet, "cholesky": _legacy_cholesky,
        "cholesky_solve": _cholesky_solve, "cholesky_inverse": _cholesky_inverse, "qr": _legacy_qr,
        "svd": _legacy_svd, "pinverse": _pinverse, "matrix_power": matrix_power,
        "triangular_solve": _triangular_solve, "geqrf": _geqrf, "orgqr": householder_product,
        "lu_unpack": lu_unpack,
    }
    for name, f in legacy.items():
        setattr(torch, name, f)
        if name != "lu_unpack":
            setattr(T, name, f)
    torch.chain_matmul = _chain_matmul
    torch.linalg_solve = solve
    torch.lu_solve = _legacy_lu_solve
    T.lu_solve = _legacy_lu_solve
    torch.lu = _legacy_lu
    T.lu = _legacy_lu
    torch.cross = lambda input, other, dim=None: cross(input, other, dim=_cross_dim(input, other, dim))
    T.cross = torch.cross
    torch.linalg.LinAlgError = LinAlgError


def _cross_dim(a, b, dim):
    if dim is not None:
        return dim
    # torch.cross without dim: the first dim of size 3 (deprecated in PyTorch)
    shape = torch.broadcast_shapes(a.shape, b.shape)
    for i, s in enumerate(shape):
        if s == 3:
            return i
    raise RuntimeError("no dimension of size 3 in input")


def _legacy_lu_solve(b, LU_data, LU_pivots, *, out=None):
    _no_out(out, "torch.lu_solve")
    _deprecated("lu_solve")
    return lu_solve(LU_data, LU_pivots, b)


def _legacy_lu(A, pivot=True, get_infos=False, out=None):
    _no_out(out, "torch.lu")
    _deprecated("lu")
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return LU, pivots, info
    _raise_singular(info, A, "torch.linalg.lu_factor", _lu_message, RuntimeError)
    return LU, pivots
