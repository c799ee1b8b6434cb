# Error cases with PyTorch's exact messages. Where the message names a CUDA
# device the expected text is PyTorch's as documented; the CPU ones were
# checked against Debian's python3-torch.
import torch
from checks import check


a = torch.ones(4, device='cuda:0')
b = torch.ones(4, device='cuda:1')
c = torch.ones(4)
check(lambda: a + b)
check(lambda: a * c)
check(lambda: torch.cuda.stream())
check(lambda: torch.ones(2, 3) + torch.ones(4))
check(lambda: torch.ones(2, 3).view(5))
check(lambda: torch.ones(2, 3).sum(2))
check(lambda: torch.ones(2, 3)[2])
check(lambda: torch.ones(3, dtype=torch.int64).mean())
check(lambda: torch.ones(2, 3) @ torch.ones(2, 3))
check(lambda: torch.ones(2).item())
check(lambda: torch.tensor(1.5)[0])
check(lambda: -torch.tensor([True]))
check(lambda: torch.ones(2, dtype=torch.int64).add_(torch.ones(2) * 0.5))
check(lambda: torch.device('gpu'))
check(lambda: torch.device('cuda:x'))
check(lambda: torch.empty(-1))
check(lambda: torch.ones(3).index_select(0, torch.tensor([5])))
check(lambda: bool(torch.ones(2)))
check(lambda: torch.cuda.set_per_process_memory_fraction(2.0))
check(lambda: torch.cuda.Event().elapsed_time(torch.cuda.Event()))
