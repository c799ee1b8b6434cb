# torch.testing.assert_close (tensors, numbers, sequences and mappings;
# per-dtype tolerances; PyTorch's mismatch messages) and the small torch
# functions scripts call in passing: thread counts, is_nonzero, typename,
# asarray, is_storage, the deterministic debug mode, mkldnn/openmp
# availability. The expected output is what Debian's python3-torch 1.13
# prints for this script.
import torch
from torch.testing import assert_close
cases = [
 (torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0])),
 (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0], dtype=torch.float64)),
 (torch.tensor([1, 2]), torch.tensor([1, 3])),
 (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0, 3.0])),
 (torch.tensor([[1.0, float('nan')], [0.0, 5.0]]), torch.tensor([[1.0, float('nan')], [0.1, 5.0]])),
 (1.0, 1.1),
 ([torch.tensor(1.0)], [torch.tensor(1.5)]),
 (torch.tensor(2.0), torch.tensor(2.0000001)),
 ({"a": torch.ones(2), "b": [torch.zeros(3), torch.ones(1)]}, {"a": torch.ones(2), "b": [torch.zeros(3), torch.zeros(1)]}),
 (torch.ones(2, 3).half(), (torch.ones(2, 3) * 1.01).half()),
]
for a, b in cases:
    try:
        assert_close(a, b); print("ok")
    except Exception as e:
        print(type(e).__name__, repr(str(e)))
assert_close(torch.tensor([1.0, float('nan')]), torch.tensor([1.0, float('nan')]), equal_nan=True); print("nan ok")
try: assert_close(torch.tensor([1.0]), torch.tensor([1.1]), rtol=0, atol=0.01, msg="custom")
except Exception as e: print(repr(str(e)))
assert_close(torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64), check_dtype=False); print("dtype ok")
try: assert_close(torch.tensor([1.0]), torch.tensor([1.05]), rtol=0.01)
except Exception as e: print(type(e).__name__, repr(str(e)))
print(torch.get_num_threads() > 0, torch.is_nonzero(torch.tensor([3])), torch.typename(torch.ones(2)), torch.typename(3.5))
torch.set_num_threads(2); print(torch.get_num_threads())
try: torch.is_nonzero(torch.ones(2))
except Exception as e: print(e)
print(torch.asarray([1, 2]).dtype, torch.asarray(torch.ones(2), dtype=torch.int64).dtype, torch.is_storage(torch.ones(1).storage()), torch.is_storage(3))
torch.set_deterministic_debug_mode("warn"); print(torch.get_deterministic_debug_mode(), torch.are_deterministic_algorithms_enabled())
torch.set_deterministic_debug_mode(0); print(torch.get_deterministic_debug_mode())
print(torch.backends.mkldnn.is_available() in (True, False), torch.backends.openmp.is_available() in (True, False))
