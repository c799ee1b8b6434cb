"""The backward formulas of torch.linalg's nodes, PyTorch 1.13's
(torch/csrc/autograd/FunctionsManual.cpp) for real inputs, written with
differentiable ops so that create_graph records a graph of its own.

torch/linalg.py runs an op's kernels with grad mode off and then records
one node with PyTorch's name (LinalgInvExBackward0, ...) through
_record: its inputs are the op's differentiable inputs, its outputs the
floating results. A formula takes the saved tensors and one gradient per
output (zeros for an output that got none: materialize_grads) and returns
one gradient per input, None where the input does not need one."""

import torch

__all__ = []


class _Node:
    """What the engine calls (torch._C._function_record's state)."""

    materialize_grads = True

    def __init__(self, name, formula, saved):
        self.name = name
        self.formula = formula
        self.saved = saved

    def _release(self):
        self.saved = None

    def __call__(self, *grads):
        if self.saved is None:
            raise RuntimeError("Trying to backward through the graph a second time (or directly access saved "
                               "tensors after they have already been freed). Saved intermediate values of the "
                               "graph are freed when you call .backward() or autograd.grad(). Specify "
                               "retain_graph=True if you need to backward through the graph a second time or if "
                               "you need to access saved tensors after calling backward.")
        return tuple(self.formula(self.saved, *grads))


def _record(name, formula, inputs, outputs, **saved):
    """Records node name on outputs when grad mode is on and an input
    requires grad. Saved outputs are kept detached (an output's node must
    not hold the output: a reference cycle), so a second derivative does
    not flow through them; the formulas that support create_graph
    recompute them from the saved inputs instead (_recompute)."""
    if not torch.is_grad_enabled() or not any(t.requires_grad for t in inputs):
        return
    saved = {k: (v.detach() if any(v is o for o in outputs) else v) for k, v in saved.items()}
    torch._C._function_record(name, _Node(name, formula, saved), list(inputs), list(outputs))


def _mT(t):
    return t.transpose(-2, -1)


def _sum_to(g, shape):
    """A broadcast input's gradient, summed back to its shape."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and g.shape[lead + i] != 1]
    if dims:
        g = g.sum(dims, keepdim=True)
    return g.reshape(shape)


def _recompute(s, key, f):
    """A saved result, or with create_graph (grad mode on in the backward)
    the same computed again from the saved input A, with its graph"""
    if torch.is_grad_enabled() and s["A"].requires_grad:
        return f(s["A"])
    return s[key]


def inv(s, g):
    # gA = -A^{-H} g A^{-H}
    ih = _mT(_recompute(s, "inverse", torch.linalg.inv))
    return (-(ih @ g @ ih),)


def det(s, g):
    # gA = g det A^{-H}, A invertible (PyTorch goes through an SVD for a
    # singular A; Tensorscope gives nan there)
    d = (g * _recompute(s, "det", torch.linalg.det)).unsqueeze(-1).unsqueeze(-1)
    return (d * _mT(_recompute(s, "inverse", torch.linalg.inv)),)


def slogdet(s, g_sign, g_logabsdet):
    # the sign of a real matrix is locally constant: only log|det| counts
    return (g_logabsdet.unsqueeze(-1).unsqueeze(-1) * _mT(_recompute(s, "inverse", torch.linalg.inv)),)


def solve(s, g):
    # X = A^{-1} B: gB = A^{-H} gX, gA = -gB X^H (left); vectors as columns
    A, X, vector = s["A"], s["X"], s["vector"]
    gX = g.unsqueeze(-1) if vector else g
    Xm = X.unsqueeze(-1) if vector else X
    gB = torch.linalg.solve(_mT(A), gX)
    gA = -(gB @ _mT(Xm))
    gB = gB.squeeze(-1) if vector else gB
    return (_sum_to(gA, s["A_shape"]) if s["needs"][0] else None,
            _sum_to(gB, s["B_shape"]) if s["needs"][1] else None)


def cholesky(s, gL):
    L, upper = s["L"], s["upper"]
    if upper:
        L, gL = _mT(L), _mT(gL)
    gA = (_mT(L) @ gL).tril()
    gA = 0.5 * (gA + _mT(gA.tril(-1)))
    gA = torch.linalg.solve_triangular(_mT(L), gA, upper=True, left=True)
    gA = torch.linalg.solve_triangular(L, gA, upper=False, left=False)
    return (gA,)


def _diag_set(X, d):
    """X with its diagonal replaced by d (out of place)"""
    return X - torch.diag_embed(X.diagonal(dim1=-2, dim2=-1)) + torch.diag_embed(d)


def eigh(s, gL, gV):
    if not s["compute_v"]:
        raise RuntimeError("linalg_eigh_backward: torch.linalg.eigvalsh does not support autograd when "
                           "computed without eigenvectors")
    L, V = s["L"], s["V"]
    VhgV = _mT(V) @ gV
    VhgV = 0.5 * (VhgV - _mT(VhgV))
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    E = _diag_set(E, torch.ones_like(L))
    gA = _diag_set(VhgV / E, gL)
    return (V @ (gA @ _mT(V)),)


def svd(s, gU, gS, gVh):
    U, S, Vh = s["U"], s["S"], s["Vh"]
    if s["full"]:
        k = S.shape[-1]
        U, Vh = U[..., :k], Vh[..., :k, :]
        gU, gVh = gU[..., :k], gVh[..., :k, :]
    m, n = U.shape[-2], Vh.shape[-1]
    V, gV = _mT(Vh), _mT(gVh)
    UhgU = _mT(U) @ gU
    UhgU = UhgU - _mT(UhgU)
    VhgV = _mT(V) @ gV
    VhgV = VhgV - _mT(VhgV)
    S2 = S * S
    E = _diag_set(S2.unsqueeze(-2) - S2.unsqueeze(-1), torch.ones_like(S))
    gA = (UhgU * S.unsqueeze(-2) + S.unsqueeze(-1) * VhgV) / E
    gA = gA + torch.diag_embed(gS)
    if m > n:
        gA = U @ gA
        gUSinv = gU / S.unsqueeze(-2)
        gA = gA + gUSinv - U @ (_mT(U) @ gUSinv)
        gA = gA @ Vh
    elif m < n:
        gA = gA @ Vh
        gVSinv = gV / S.unsqueeze(-2)
        gA = gA + _mT(gVSinv) - (_mT(gVSinv) @ V) @ Vh
        gA = U @ gA
    else:
        gA = U @ (gA @ Vh)
    return (gA,)


def svdvals(s, gS):
    U, Vh = s["U"], s["Vh"]
    return (U @ (gS.unsqueeze(-1) * Vh),)


def qr(s, gQ, gR):
    Q, R, mode = s["Q"], s["R"], s["mode"]
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
                           "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.")
    m, n = Q.shape[-2], R.shape[-1]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    gA = gR @ _mT(R) - _mT(Q) @ gQ
    if m >= n:
        sym = gA.triu()
        sym = sym + _mT(sym)
        sym = sym - torch.diag_embed(sym.diagonal(dim1=-2, dim2=-1) * 0.5)
        gA = Q @ sym + gQ
        return (torch.linalg.solve_triangular(_mT(R), gA, upper=False, left=False),)
    X = -gA
    skew = (X - _mT(X)).tril()
    gA = Q @ skew
    gA = torch.linalg.solve_triangular(_mT(R[..., :m]), gA, upper=False, left=False)
    gA = torch.cat([gA, torch.zeros(R.shape[:-1] + (n - m,), dtype=gA.dtype, device=gA.device)], -1)
    return (gA + Q @ gR,)


def pinv(s, g):
    P, A = s["pinv"], s["A"]
    m, n = A.shape[-2], A.shape[-1]
    Ph, gh = _mT(P), _mT(g)
    if m <= n:
        K = gh @ P
        KPh = K @ Ph
        return (-_mT(P @ K) + KPh - (A @ P) @ KPh + (Ph @ P) @ (gh - K @ A),)
    K = P @ gh
    PhK = Ph @ K
    return (-_mT(K @ P) + ((gh - A @ K) @ P) @ Ph + PhK - (PhK @ P) @ A,)


def solve_triangular(s, g):
    # X = A^{-1} B (left) or B A^{-1}: gB = A^{-H} g, gA = -gB X^H (left)
    A, X, upper, left, unit = s["A"], s["X"], s["upper"], s["left"], s["unit"]
    gB = torch.linalg.solve_triangular(_mT(A), g, upper=not upper, left=left, unitriangular=unit)
    gA = -(gB @ _mT(X)) if left else -(_mT(X) @ gB)
    gA = gA.triu(int(unit)) if upper else gA.tril(-int(unit))
    return (_sum_to(gA, s["A_shape"]) if s["needs"][0] else None,
            _sum_to(gB, s["B_shape"]) if s["needs"][1] else None)


def cholesky_inverse(s, g):
    # X = (L L^H)^{-1}: gL = -(X (g + g^H) X) L (lower), -L (...) (upper)
    L, X, upper = s["L"], s["X"], s["upper"]
    common = X @ ((g + _mT(g)) @ X)
    return (-(L @ common) if upper else -(common @ L),)


def cholesky_solve(s, g):
    # X = (L L^H)^{-1} B: gB = cholesky_solve(g, L); gL from gB X^H
    L, X, upper = s["L"], s["X"], s["upper"]
    gB = torch.cholesky_solve(g, L, upper)
    common = gB @ _mT(X)
    common = common + _mT(common)
    gL = -(L @ common) if upper else -(common @ L)
    return (_sum_to(gB, s["B_shape"]) if s["needs"][0] else None,
            _sum_to(gL, s["L_shape"]) if s["needs"][1] else None)
