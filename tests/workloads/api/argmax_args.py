# Tensor.argmax/argmin (the C method's usual call, the Python fallback for
# the rest) and torch.argmax/argmin against python3-torch: values with a
# NaN, keepdim, negative dims, no dim, and the argument errors' texts.
import torch

x = torch.tensor([[1., 5., 3.], [7., 2., float('nan')]])
print(x.argmax(), x.argmax(1), x.argmin(0), x.argmax(dim=1, keepdim=True), x.argmax(-1), x.argmin(keepdim=True))
print(torch.argmax(x, 1), torch.argmin(x, dim=0, keepdim=True), x.t().argmax(0), x.int().argmin(1))
for bad in (lambda: x.argmax(5), lambda: x.argmax(x=1), lambda: x.argmax(1.5), lambda: torch.empty(0).argmax(),
            lambda: x.argmax(1, 1), lambda: x.argmax(1, True, 3), lambda: torch.argmin(x, 2.0),
            lambda: torch.empty(2, 0).argmax(1)):
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)
