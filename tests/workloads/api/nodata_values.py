# --no-data (TENSORSCOPE_NO_DATA=1 in nodata_values.env): everything that
# needs tensor values refuses, naming itself and --no-data, as PyTorch's
# meta tensors refuse .item(); shapes, dtypes, devices, strides, memory
# and the RNG's offsets are as in a normal run. repr prints "..." for the
# values, as for a meta tensor (docs/no-data.md).
import torch
from checks import check

print(torch._C._no_data())
a = torch.randn(4, 3, device="cuda")
b = torch.ones(3, 5, device="cuda", dtype=torch.float16)
c = a @ b.float()
print(c)
print(repr(torch.zeros(2, dtype=torch.int64)), torch.zeros(()), torch.ones(3, requires_grad=True))
print(torch.zeros(3000, 2, dtype=torch.float16), torch.empty(3000, requires_grad=True))
print(c.shape, c.dtype, c.device, c.stride(), c.t().is_contiguous(), c[1:, ::2].stride())
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
t = torch.tensor([1.0, 2.0, 3.0], device="cuda")
print(t, t.data_ptr() % 512)
check(lambda: c.sum().item())
check(lambda: c.tolist())
check(lambda: bool(c[0, 0] > 0))
check(lambda: float(c[0, 0]))
check(lambda: int(c.long()[0, 0]))
check(lambda: c.nonzero())
check(lambda: c[c > 0])
check(lambda: torch.masked_select(c, c > 0))
check(lambda: c.cpu().numpy())
check(lambda: torch.equal(c, c))
check(lambda: c.cpu().tolist())
check(lambda: torch.tensor([c[0, 0], c[0, 1]]))
check(lambda: list(range(10))[t.long()[0]])
check(lambda: "%.2f" % c[0, 0])
# the RNG advances as PyTorch's: the same offsets as a normal run
torch.manual_seed(0)
torch.randn(1000, device="cuda")
torch.rand(10, 10, device="cuda")
print(torch.cuda.get_rng_state().tolist())
state = torch.get_rng_state()
torch.set_rng_state(state)
print(state.shape)
# values the program gives are its own: small CPU ops on them compute (an
# optimizer's step count), until values from a device land in them
v = torch.tensor([1, 2, 3])
print(v, v.tolist(), v[1].item())
v.add_(1)
print(v.tolist(), (v * 2).sum().item(), torch.zeros(2) + 1, v[v > 2], torch.tensor([0, 1, 2]).nonzero().tolist())
v.copy_(t.long())
check(lambda: v.tolist())
check(lambda: torch.zeros(10000).sum().item())
x = torch.empty(2, 3).pin_memory()
print(x.is_pinned(), x.to("cuda", non_blocking=True).device)
print("the workload goes on")
# torch.save refuses tensors (zeros would load and lie); no tensor, no problem
import io  # noqa: E402
check(lambda: torch.save({"w": torch.ones(3, device="cuda")}, io.BytesIO()))
torch.save({"step": 3}, io.BytesIO())
print("saved a dict without tensors")
