# torch.cuda.comm's coalesced collectives move one flat buffer a bucket
# (torch/csrc/cuda/comm.cpp, torch/cuda/comm.py): broadcast_coalesced
# closes a bucket at the tensor that brings it to 10 MiB, gives the
# source device the tensors themselves and every other device views of
# one buffer a bucket, so a view kept alive keeps its whole bucket;
# reduce_add_coalesced sums the buckets on the destination. nn.DataParallel
# replicates its module through them.
import torch
from torch.cuda import comm

MiB = 2 ** 20
ts = [torch.full((MiB,), float(i), device="cuda") for i in range(4)]   # 4 MiB each
base = torch.cuda.memory_allocated(1)
out = comm.broadcast_coalesced(ts, [0, 1])
print("source keeps its tensors:", all(a is b for a, b in zip(out[0], ts)))
print("cuda:1 offsets in MiB:", [(t.data_ptr() - out[1][0].data_ptr()) // MiB for t in out[1][:3]],
      "buffers:", [t.storage().data_ptr() == out[1][0].storage().data_ptr() for t in out[1]],
      "sizes MiB:", [t.storage().nbytes() // MiB for t in out[1]])
print("cuda:1 allocated MiB:", (torch.cuda.memory_allocated(1) - base) // MiB)
print("values:", [t[0].item() for t in out[1]])
one = out[1][0]
del out
print("one view keeps its bucket, MiB:", (torch.cuda.memory_allocated(1) - base) // MiB)
del one
print("freed, MiB:", (torch.cuda.memory_allocated(1) - base) // MiB)

grads = [[t + 1 for t in ts], [t.to("cuda:1") * 2 for t in ts]]
summed = comm.reduce_add_coalesced(grads, destination=0)
print("reduce_add_coalesced:", [t.device.index for t in summed], [t[0].item() for t in summed])
