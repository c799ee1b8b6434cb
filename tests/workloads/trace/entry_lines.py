# Read back by test-workload-trace: each op below, on its own line after an
# op on another line, must name its own line (these entry points once kept
# the previous op's line).
import torch
import torch.nn.functional as F
x = torch.randn(2, 3, 4, 4, device='cuda')
y = x + 1
a = F.gelu(y)                                   # line 8: aten::gelu
b = F.max_pool2d(y, 2)                          # line 9: aten::max_pool2d_with_indices
c = F.batch_norm(y, None, None, training=True)  # line 10: aten::native_batch_norm
e = F.glu(y, 3)                                 # line 11: aten::glu
f = F.pad(y, (1, 1, 1, 1), mode='reflect')      # line 12: aten::reflection_pad2d
g = F.group_norm(y, 3)                          # line 13: aten::native_group_norm
y.masked_fill_(y > 0, 0.0)                      # line 14: aten::masked_fill_
i = torch.nonzero(x)                            # line 15: aten::nonzero
j = torch.linalg.inv(x[0, 0])                   # line 16: aten::linalg_inv_ex
torch.cuda.synchronize()
