# torch.set_printoptions against PyTorch 1.13: precision, sci_mode forced
# either way, threshold and edgeitems, linewidth, the profiles.
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
x = (torch.randn(3, 4).to(DEV) * 10).cpu()
big = torch.arange(30.0).reshape(5, 6)
small = torch.tensor([1e-5, 1.0, 123.0])
ints = torch.tensor([1.0, 2.0, 3000.0])
for opts in [dict(precision=2), dict(precision=6), dict(sci_mode=True), dict(sci_mode=False),
             dict(threshold=10), dict(threshold=10, edgeitems=1), dict(linewidth=30), dict(profile="short"),
             dict(profile="full"), dict(profile="default")]:
    torch.set_printoptions(**opts)
    print(opts)
    print(x)
    print(big)
    print(small, ints)
torch.set_printoptions(profile="default")
torch.set_printoptions(profile="nope")   # ignored, as PyTorch does
print(big[0])
