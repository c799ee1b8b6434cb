# Read back by test-workload-trace: the line numbers below are asserted.
import torch
w = torch.nn.Parameter(torch.ones(4, 4, device='cuda'))
opt = torch.optim.SGD([w], lr=0.1)
scaler = torch.cuda.amp.GradScaler()
with torch.autocast('cuda'):
    y = torch.ones(2, 4, device='cuda') @ w   # line 7: the weight's cast, aten::mm
scaler.scale(y.float().sum()).backward()
scaler.step(opt)          # line 9: unscale kernel, found_inf.item() waits
scaler.update()           # line 10: _amp_update_scale_
torch.cuda.synchronize()
