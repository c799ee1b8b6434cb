# Stream priorities when the SMs are busy.
#
# A low-priority stream queues a long series of large matmuls that take
# every SM. A little later, urgent small work arrives on a high-priority
# stream (a lower number means a higher priority). Priorities do not
# preempt a kernel that is already running, but whenever SMs free up the
# scheduler serves the high-priority stream first, so the urgent kernels
# slip in between the big ones instead of waiting for the whole queue.
# Run it, then set both streams to the same priority and compare when
# the urgent kernels finish.
import torch

device = torch.device("cuda:0")
background = torch.cuda.Stream(priority=0)
urgent = torch.cuda.Stream(priority=-1)

big = torch.randn(1024, 1024, device=device)
small = torch.randn(64, 1024, device=device)
weights = torch.randn(1024, 1024, device=device)
torch.cuda.synchronize()

queued = torch.cuda.Event(enable_timing=True)
done = torch.cuda.Event(enable_timing=True)

with torch.cuda.stream(background):
    torch.cuda.nvtx.range_push("background")
    for _ in range(8):
        big = (big @ big).tanh()
    torch.cuda.nvtx.range_pop()

with torch.cuda.stream(urgent):
    torch.cuda.nvtx.range_push("urgent")
    queued.record()
    for _ in range(4):
        small = (small @ weights).tanh()
    done.record()
    torch.cuda.nvtx.range_pop()

torch.cuda.synchronize()
print("priorities: background {}, urgent {}".format(background.priority, urgent.priority))
print("urgent work took {:.3f} ms from queueing to completion".format(queued.elapsed_time(done)))
