# torch.profiler's pure parts against PyTorch 1.13: the step schedule, the
# activities, and the errors of a profile without results.
import torch
from torch.profiler import ProfilerAction, ProfilerActivity, schedule

for args in [dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=1),
             dict(wait=0, warmup=2, active=1, repeat=2, skip_first=3)]:
    s = schedule(**args)
    print(args, [s(i).name for i in range(12)])
print(ProfilerActivity.CPU.name, ProfilerActivity.CUDA.name, ProfilerAction.RECORD_AND_SAVE.value)
print(ProfilerActivity.CPU in torch.profiler.supported_activities())
try:
    schedule(wait=0, warmup=0, active=0)
except AssertionError as e:
    print("AssertionError:", e)
with torch.profiler.record_function("outside any profile"):
    pass
print(callable(torch.profiler.tensorboard_trace_handler("/nonexistent-dir-is-made-lazily")))
print(torch.autograd.profiler.record_function is torch.profiler.record_function)
