# On the simulator a device's bytes live in host memory: when the host
# cannot hold them the workload gets an error and goes on (its trace too).
# A segment the host cannot back fails as cudaMalloc would ("CUDA error: out
# of memory", PyTorch's text for a failed CUDA call) with the reason; a
# kernel whose operands the host cannot stage fails asynchronously as a
# launch out of resources, reported by the next call that waits for it.
# A kernel is staged only when other work starts or ends while it runs (a
# copy on another stream here); alone it writes in place and needs no room.
# Tensorscope's own texts: a GPU has no such limit, PyTorch no such error.
import resource

import torch


def check(fn):
    try:
        fn()
    except Exception as err:
        print(type(err).__name__ + ":", str(err).splitlines()[0])
    else:
        print("no error")


big = torch.empty(3 * 2**30, dtype=torch.int8, device="cuda")
vm = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**30, resource.RLIM_INFINITY))
check(lambda: torch.empty(4 * 2**30, dtype=torch.int8, device="cuda"))
side = torch.cuda.Stream()


def fill_beside_a_copy():
    big.fill_(1)
    with torch.cuda.stream(side):
        torch.ones(4).to("cuda", non_blocking=True)


check(lambda: (big.fill_(2), torch.cuda.synchronize()))
check(fill_beside_a_copy)
check(lambda: torch.cuda.synchronize())
print("the workload goes on", torch.ones(3).sum().item())
