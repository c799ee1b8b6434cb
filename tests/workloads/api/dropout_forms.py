# The dropout family (#16) on CPU tensors: dropout, dropout1d/2d/3d (one
# draw per channel), alpha_dropout and feature_alpha_dropout, their torch.*
# and in-place forms, the modules, gradients, the argument errors and the
# deprecation warnings. The masks are PyTorch's own for the same seed:
# ATen's CPU dropout draws a noise tensor with bernoulli_(1 - p), as ours
# does. The expected output is what Debian's python3-torch 1.13 prints.
import warnings

import torch
import torch.nn.functional as F

warnings.simplefilter("ignore")   # the warnings are printed by the block below
torch.manual_seed(0)
x = torch.arange(1., 25.).reshape(2, 3, 4)
print(F.dropout(x, 0.3))
print(F.dropout2d(x.unsqueeze(-1), 0.5))
print(F.dropout1d(x, 0.5))
print(F.dropout1d(x[0], 0.5))
print(F.dropout3d(x.reshape(2, 3, 2, 2, 1), 0.5).flatten())
print(F.alpha_dropout(x, 0.2, True))
print(F.feature_alpha_dropout(x, 0.2, True))
print(torch.dropout(x, 0.5, True).sum(), torch.feature_dropout(x, 0.5, False).sum())
y = x.clone()
torch.dropout_(y, 0.5, True)
print(y.sum())
print(torch.nn.Dropout2d(0.2), torch.nn.AlphaDropout(0.1), torch.nn.Dropout1d(), torch.nn.FeatureAlphaDropout())
m = torch.nn.Dropout3d(0.5)
m.eval()
print(m(x) is x)
w = torch.ones(2, 3, requires_grad=True)
o = F.dropout(w * 2, 0.5)
print(o.grad_fn.name(), o)
o.sum().backward()
print(w.grad)
for bad in (lambda: F.dropout(x, 1.5), lambda: F.dropout1d(torch.ones(2), 0.5),
            lambda: F.dropout1d(torch.ones(2, 2, 2, 2), 0.5), lambda: F.dropout2d(torch.ones(3), 0.5)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, e)
with warnings.catch_warnings(record=True) as ws:
    warnings.simplefilter("always")
    F.dropout2d(x, 0.5)
    F.dropout2d(x[0], 0.5)
    F.dropout3d(x, 0.1)
    for wi in ws:
        print("warning:", wi.message)
print(F.dropout(x, 1.0).sum(), F.dropout(torch.ones(0), 0.5).shape)
print(torch.rand(2))
