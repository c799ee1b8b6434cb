# Overlapping copies with compute.
#
# While the default stream multiplies the current batch, a side stream
# already brings the next batch over PCIe. This only overlaps because the
# source batches are pinned and the copies are non_blocking; a pageable
# copy would stall the host until it is done. On the timeline, look for
# each "prefetch" copy on the side stream running under the "compute"
# kernels of the default stream, and for the host thread racing ahead.
#
# Two details keep it correct: the default stream waits for the side
# stream before it uses a prefetched batch (wait_stream), and
# record_stream() tells the caching allocator that the batch is used on
# the default stream, so its memory is not handed out again too early.
import torch

device = torch.device("cuda:0")
copy_stream = torch.cuda.Stream()
steps = 4

weights = torch.randn(1024, 1024, device=device)
batches = [torch.randn(1024, 1024).pin_memory() for _ in range(steps)]

current = batches[0].to(device, non_blocking=True)
for step in range(steps):
    if step + 1 < steps:
        with torch.cuda.stream(copy_stream):
            torch.cuda.nvtx.range_push("prefetch {}".format(step + 1))
            upcoming = batches[step + 1].to(device, non_blocking=True)
            torch.cuda.nvtx.range_pop()

    torch.cuda.nvtx.range_push("compute {}".format(step))
    hidden = (current @ weights).relu()
    output = hidden @ weights
    torch.cuda.nvtx.range_pop()

    if step + 1 < steps:
        torch.cuda.current_stream().wait_stream(copy_stream)
        upcoming.record_stream(torch.cuda.current_stream())
        current = upcoming

torch.cuda.synchronize()
print(output.shape, output.device)
