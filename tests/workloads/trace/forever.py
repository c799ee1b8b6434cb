# Never ends on its own: test-workload-trace stops it with SIGTERM.
import sys
import time
import torch

a = torch.ones(16, device='cuda') + 1
print("ready", flush=True)
while True:
    time.sleep(0.01)
