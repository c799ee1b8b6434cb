# On the simulator a device's bytes live in host memory: when the host
# cannot hold them the workload gets an error and goes on (its trace too).
# A segment the host cannot back fails as cudaMalloc would ("CUDA error: out
# of memory", PyTorch's text for a failed CUDA call) with the reason; a
# kernel whose operands the host cannot stage fails asynchronously as a
# launch out of resources, reported by the next call that waits for it.
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
check(lambda: big.fill_(1))
check(lambda: torch.cuda.synchronize())
print("the workload goes on", torch.ones(3).sum().item())
