# Pinned host memory.
#
# pin_memory() copies a tensor into page-locked host memory, which the
# copy engines can read directly; only then can cuda(non_blocking=True)
# return before the copy is done. On the timeline the pageable copy keeps
# the host blocked for its whole length, the pinned one does not. The
# output shows the copied tensor and (the ids will differ):
#   is_pinned: False/True
import torch
from torch.utils.data._utils.pin_memory import pin_memory
x = torch.Tensor([[1, 2, 4], [5, 7, 9], [3, 7, 10]])
y = pin_memory(x)
z = x.pin_memory()
print("id: {}".format(id(x)))
print("id: {}".format(id(y)))
print("id: {}".format(id(z)))
a = z.cuda(non_blocking=True)
print(a)
print("is_pinned: {}/{}".format(x.is_pinned(), z.is_pinned()))

big = torch.randn(1024, 1024)
pageable = big.cuda()                               # host waits
pinned = big.pin_memory().cuda(non_blocking=True)  # host does not wait
torch.cuda.synchronize()
