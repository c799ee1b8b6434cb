# Host memory for data running out (TENSORSCOPE_HOST_MEMORY_LIMIT=64M in
# host_budget.env): every path that needs host bytes for data raises a
# RuntimeError, and the workload goes on. A simulated device's bytes live
# in this machine's memory, so the error says so and names --no-data; a
# CPU tensor's bytes are PyTorch's own, with c10's message.
import torch
from checks import check

MB = 1 << 20
# a device segment (its bytes are host memory)
check(lambda: torch.empty(100 * MB, dtype=torch.uint8, device="cuda"))
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
# a kernel's staging copy of its output
x = torch.empty(40 * MB, dtype=torch.uint8, device="cuda")
check(lambda: x.fill_(1))
# a CPU tensor, and a device-to-host copy into one
check(lambda: torch.empty(100 * MB, dtype=torch.uint8))
check(lambda: x.cpu())
# pinned memory
check(lambda: torch.empty(80 * MB, dtype=torch.uint8).pin_memory())
check(lambda: torch.empty(80 * MB, dtype=torch.uint8, pin_memory=True))
del x
torch.cuda.empty_cache()
print(torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
y = torch.ones(4 * MB, dtype=torch.uint8, device="cuda")
print("the workload goes on", y.sum().item(), torch.ones(3).sum().item())
