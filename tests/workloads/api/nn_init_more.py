# nn.init's orthogonal_ (QR of a normal draw, R's diagonal signs folded in),
# eye_, dirac_ (with groups) and sparse_ (#16), on a matrix, a conv-shaped
# tensor and an LSTM's recurrent weights, and their errors. The expected
# output is what Debian's python3-torch 1.13 prints for this script.
import torch, torch.nn as nn
torch.manual_seed(0)
w = torch.empty(3, 5)
nn.init.orthogonal_(w)
print(w, (w @ w.t()).round(decimals=4))
w2 = torch.empty(4, 2, 2)
nn.init.orthogonal_(w2, gain=2.0)
print(w2.reshape(4, -1))
print(nn.init.eye_(torch.empty(2, 3)), nn.init.dirac_(torch.empty(2, 2, 3)))
print(nn.init.dirac_(torch.empty(4, 2, 3, 3), groups=2).sum((2, 3)))
print(nn.init.sparse_(torch.empty(4, 3), 0.5))
lstm = nn.LSTM(3, 4)
for name, p in lstm.named_parameters():
    if "weight_hh" in name:
        nn.init.orthogonal_(p)
print(lstm.weight_hh_l0[:2])
for bad in (lambda: nn.init.orthogonal_(torch.empty(3)), lambda: nn.init.eye_(torch.empty(2, 2, 2)), lambda: nn.init.dirac_(torch.empty(3, 2, 2), groups=2)):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
print(torch.rand(2))
