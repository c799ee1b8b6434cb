"""torch.testing.assert_close: PyTorch 1.13's comparison of tensors,
numbers and their containers, with its default tolerances per dtype and
its mismatch messages (written from its documented behaviour; checked
against 1.13 in tests/workloads/api/testing_assert_close.py)."""

import math

import torch
from torch import _unmodeled

# rtol, atol per dtype; exact for integers and bool
_PRECISION = {torch.float16: (0.001, 1e-5), torch.bfloat16: (0.016, 1e-5), torch.float32: (1.3e-6, 1e-5),
              torch.float64: (1e-7, 1e-7), torch.complex64: (1.3e-6, 1e-5), torch.complex128: (1e-7, 1e-7)}


def _tolerances(dtypes, rtol, atol):
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but got no {}."
                         .format("rtol" if rtol is None else "atol"))
    if rtol is not None:
        return rtol, atol
    pairs = [_PRECISION.get(d, (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _diff_line(kind, diff, idx, tol, equality):
    line = "{} difference: {}".format(kind.title(), diff) if idx is None else \
        "Greatest {} difference: {} at index {}".format(kind, diff, idx)
    return line + ("" if equality else " (up to {} allowed)".format(tol)) + "\n"


def _mismatch(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    equality = rtol == 0 and atol == 0
    msg = "{} are not {}!\n\n".format(identifier, "equal" if equality else "close")
    if extra:
        msg += extra.strip() + "\n"
    msg += _diff_line("absolute", abs_diff, abs_idx, atol, equality)
    msg += _diff_line("relative", rel_diff, rel_idx, rtol, equality)
    return msg.strip()


def _unravel(flat, shape):
    idx = []
    for n in reversed(shape):
        idx.append(flat % n)
        flat //= n
    return tuple(reversed(idx))


def _scalar_close(a, b, rtol, atol, equal_nan):
    if a == b or (equal_nan and a != a and b != b):
        return True
    if a != a or b != b:
        return False
    return abs(a - b) <= atol + rtol * abs(b)


def _scalar_msg(a, b, rtol, atol):
    diff = abs(a - b)
    rel = diff / abs(b) if b != 0 else (math.inf if diff else 0.0)
    return _mismatch("Scalars", None, diff, None, atol, rel, None, rtol)


def _compare_tensors(a, b, rtol, atol, equal_nan, check_device, check_dtype, check_layout, check_stride):
    checks = [("shape", a.shape, b.shape)]
    if check_device:
        checks.append(("device", a.device, b.device))
    if check_dtype:
        checks.append(("dtype", a.dtype, b.dtype))
    if check_stride:
        checks.append(("stride()", a.stride(), b.stride()))
    for name, x, y in checks:
        if x != y:
            raise AssertionError("The values for attribute '{}' do not match: {} != {}.".format(name, x, y))
    rtol, atol = _tolerances((a.dtype, b.dtype), rtol, atol)
    if not check_dtype and a.dtype != b.dtype:
        common = torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(common), b.to(common)
    if a.device != b.device:
        a, b = a.cpu(), b.cpu()
    # compared in the widest dtype of their category
    wide = torch.complex128 if a.dtype.is_complex else torch.float64 if a.dtype.is_floating_point else torch.int64
    a, b = a.to(wide), b.to(wide)
    matches = torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if bool(matches.all()):
        return None
    if a.dim() == 0:
        return _scalar_msg(a.item(), b.item(), rtol, atol)
    mismatches = ~matches
    n, bad = mismatches.numel(), int(mismatches.sum().item())
    extra = "Mismatched elements: {} / {} ({:.1%})".format(bad, n, bad / n)
    a_flat, b_flat, ok = a.reshape(-1), b.reshape(-1), matches.reshape(-1)
    abs_diff = torch.abs(a_flat - b_flat)
    abs_diff[ok] = 0
    max_abs, abs_at = torch.max(abs_diff, 0)
    rel_diff = abs_diff / torch.abs(b_flat)
    rel_diff[ok] = 0
    max_rel, rel_at = torch.max(rel_diff, 0)
    return _mismatch("Tensor-likes", extra, max_abs.item(), _unravel(abs_at.item(), tuple(mismatches.shape)), atol,
                     max_rel.item(), _unravel(rel_at.item(), tuple(mismatches.shape)), rtol)


def _compare(actual, expected, path, kw):
    if isinstance(actual, torch.Tensor) and isinstance(expected, torch.Tensor):
        return _compare_tensors(actual, expected, **kw), path
    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError("The length of the sequences mismatch: {} != {}".format(len(actual), len(expected)))
        for i, (a, b) in enumerate(zip(actual, expected)):
            msg, where = _compare(a, b, path + [i], kw)
            if msg:
                return msg, where
        return None, path
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            raise AssertionError("The keys of the mappings do not match:\n")
        for key in sorted(actual, key=str):
            msg, where = _compare(actual[key], expected[key], path + [key], kw)
            if msg:
                return msg, where
        return None, path
    if isinstance(actual, (int, float, bool)) and isinstance(expected, (int, float, bool)):
        dtype = torch.float64 if isinstance(actual, float) or isinstance(expected, float) else torch.int64
        rtol, atol = _tolerances((dtype,), kw["rtol"], kw["atol"])
        if _scalar_close(actual, expected, rtol, atol, kw["equal_nan"]):
            return None, path
        return _scalar_msg(actual, expected, rtol, atol), path
    raise TypeError("No comparison pair was able to handle inputs of type {} and {}."
                    .format(type(actual), type(expected)))


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    kw = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
              check_layout=check_layout, check_stride=check_stride)
    if (rtol is None) != (atol is None):
        _tolerances((), rtol, atol)
    failure, where = _compare(actual, expected, [], kw)
    if failure is None:
        return
    if msg is not None:
        raise AssertionError(msg if not callable(msg) else msg(failure))
    if where:
        failure += "\n\nThe failure occurred for item " + "".join("[{!r}]".format(k) for k in where)
    raise AssertionError(failure)


__getattr__ = _unmodeled.module_getattr(__name__)
