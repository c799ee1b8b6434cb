# An asynchronous error, and how synchronous mode pins it down.
#
# index_select() is given an index one past the end of the table. The
# stream is still busy with earlier work (torch.cuda._sleep stands in for a
# long kernel, as in PyTorch's own tests), so the bad kernel has not run
# when Python goes on: the next multiplication is queued too and "queued, no
# error yet" is printed. The device reports the failure later, and the
# error is raised at the next call that waits for the device (.item()
# here), far from the real cause. Without the busy stream the kernel faults
# within microseconds, and the next launch reports it (so it did on an H200
# with PyTorch 2.11). The same ops run once first with good indices: on a
# real GPU the first launch of a kernel loads its code (CUDA's lazy loading)
# and waits for the device, which would report the error early too.
#
# Turn on "Synchronous" (CUDA_LAUNCH_BLOCKING=1, --sync) and run again:
# every launch now waits for its kernel, the message is never printed and
# the traceback points at the index_select() line.
import torch

device = torch.device("cuda:0")
table = torch.randn(1000, 64, device=device)
ids = torch.tensor([3, 17, 999, 1000], device=device)

(table.index_select(0, ids[:3]) * 2.0).sum()    # the kernels' code is loaded
torch.cuda._sleep(100_000_000)        # about 50 ms of GPU time at 2 GHz
rows = table.index_select(0, ids)
scaled = rows * 2.0
print("queued, no error yet")
total = scaled.sum().item()
print("never reached:", total)
