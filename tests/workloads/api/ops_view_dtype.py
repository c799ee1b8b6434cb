# Tensor.view(dtype): the same bytes seen as another dtype (ATen's
# view_dtype geometry and messages), writes through, not differentiable;
# on CPU and CUDA. Expected: Debian's PyTorch 1.13.
import torch
x = torch.tensor([1.0, -2.0, 0.5, 3.25])
print(x.view(torch.int32).tolist(), x.view(torch.int16).tolist(), x.view(torch.uint8)[:4].tolist())
print(x.view(torch.float64).tolist(), x.view(torch.int64).tolist(), x.view(torch.float32) is x)
y = torch.arange(12, dtype=torch.int16).reshape(3, 4)
print(y.view(torch.int32).tolist(), y[:, 2:].view(torch.int32).tolist(), y.view(torch.int32).stride())
z = x.view(torch.int32); z[0] = 0; print(x.tolist())
print(torch.tensor([1.5, 2.5]).half().view(torch.int16).tolist(), torch.tensor([1.5]).to(torch.bfloat16).view(torch.int16).tolist())
for f in (lambda: torch.tensor(1.0).view(torch.int16), lambda: y.t().view(torch.int32), lambda: y[:, 1:].view(torch.int32), lambda: torch.ones(3, dtype=torch.int16).view(torch.int32)):
    try: f()
    except RuntimeError as e: print(e)
print(torch.randn(3, requires_grad=True).view(torch.int32).requires_grad)
if torch.cuda.is_available():
    print(x.cuda().view(torch.int32).cpu().tolist())
else:
    print(x.view(torch.int32).tolist())
