# Anomaly mode (#15): detect_anomaly / set_detect_anomaly, the NaN check
# ("Function 'X' returned nan values in its 0th output."), and the flag
# outside. The forward-traceback warnings go to stderr (not compared).
# The expected output is what Debian's python3-torch 1.13 prints.
import torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    y = x.sqrt()
    z = (y * 0).sum()
    try:
        (x / x).sum().backward()
    except RuntimeError as e:
        print("E1", e)
print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled())
a = torch.tensor([-1.0], requires_grad=True)
try:
    a.sqrt().sum().backward()
except RuntimeError as e:
    print("E2", e)
torch.autograd.set_detect_anomaly(False)
b = torch.tensor([0.0], requires_grad=True)
(b / b).sum().backward(); print(b.grad)
DEV = "cuda" if torch.cuda.is_available() else "cpu"
c = torch.tensor([4.0, -1.0], device=DEV, requires_grad=True)
with torch.autograd.set_detect_anomaly(True):
    print(torch.is_anomaly_enabled())
    try:
        torch.log(c).sum().backward()
    except RuntimeError as e:
        print("E3", e)
    with torch.autograd.set_detect_anomaly(True, check_nan=False):
        c.sqrt().sum().backward()
        print(c.grad.isnan().tolist())
print(torch.is_anomaly_enabled())
