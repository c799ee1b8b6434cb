# Memory that cannot be had raises PyTorch's error and the workload goes on.
# The expected texts are Debian's python3-torch 1.13 (`python3
# host_memory.py` prints the CPU lines; an address-space limit makes the
# host allocation fail on any machine) and, for the CUDA ones, c10's
# CUDACachingAllocator ("more than 1EB") and computeStorageNbytes: a byte
# count that only a real int64 overflow refuses before the allocator.
# (The CPU allocation stays below AddressSanitizer's largest, which it
# would report on stderr.)
import resource

import torch
from checks import check


if torch.cuda.is_available():
    torch.ones(1, device="cuda").sum().item()
vm = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**30, resource.RLIM_INFINITY))

check(lambda: torch.empty(10**11))
check(lambda: torch.zeros(4, 2**30))
check(lambda: torch.empty(2**62, dtype=torch.int32))
check(lambda: torch.empty(2**61, 8))
check(lambda: torch.empty(2**62, 2**62, 0))
print(torch.empty(0, 2**62, 2**62).shape)
print("the workload goes on", torch.ones(3).sum().item())
if torch.cuda.is_available():
    check(lambda: torch.empty(1024**3 * 8000000000, dtype=torch.int8, device="cuda"))
    check(lambda: torch.empty(2**62, dtype=torch.int32, device="cuda"))
    print("and on the GPU", torch.ones(3, device="cuda").sum().item())
