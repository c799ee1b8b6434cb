# torch.any/all with out= (it was ignored): bool and uint8 outs, refused
# dtypes with ATen's message, a resized out, against python3-torch.
import torch
x = torch.tensor([[0, 1], [0, 0]])
def s(f):
    try: print(f())
    except Exception as e: print(type(e).__name__, e)
o = torch.empty(2, dtype=torch.bool); s(lambda: (torch.any(x, 1, out=o), o))
s(lambda: torch.any(x, 1, out=torch.empty(2, dtype=torch.int64)))
s(lambda: torch.all(x, 1, out=torch.empty(2, dtype=torch.float32)))
o = torch.empty(2, dtype=torch.uint8); s(lambda: (torch.any(x, 1, out=o), o))
o = torch.empty(0, dtype=torch.bool); s(lambda: (torch.all(x, out=o), o))
import warnings
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    o = torch.empty(3, dtype=torch.bool); s(lambda: (torch.any(x, 0, keepdim=True, out=o), o))
    print([str(m.message)[:60] for m in w])
s(lambda: (torch.any(x), torch.all(x.bool()), x.any(1), x.all(0), torch.any(x.to(torch.uint8), 0)))
