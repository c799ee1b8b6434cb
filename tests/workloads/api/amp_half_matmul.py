# float16 and bfloat16 matmuls on CUDA accumulate in float32 and round
# once, as cuBLAS does: a sum that rounding at each step would lose is kept.
# (PyTorch 1.13's CPU fallback GEMM rounds at each step instead: the CUDA
# numbers here are cuBLAS's, written by hand.)
import torch
import torch.nn.functional as F

for dt, big in ((torch.float16, 2048.0), (torch.bfloat16, 256.0)):
    # at big the spacing is 2: big + 1 + 1 is exact only if rounded once
    a = torch.tensor([[big, 1.0, 1.0], [1.0, 1.0, big]], device="cuda", dtype=dt)
    b = torch.ones(3, 2, device="cuda", dtype=dt)
    print(dt, (a @ b).tolist(), torch.bmm(a[None], b[None]).tolist(), F.linear(a, b.t()).tolist())
    with torch.autocast("cuda", dtype=dt):
        print("autocast", (a.float() @ b.float()).tolist())

# random operands: the half product is the float32 product rounded once
torch.manual_seed(0)
x = torch.randn(16, 32, device="cuda")
y = torch.randn(32, 8, device="cuda")
for dt in (torch.float16, torch.bfloat16):
    ref = (x.to(dt).float() @ y.to(dt).float()).to(dt)
    print(dt, torch.equal(x.to(dt) @ y.to(dt), ref))
    with torch.autocast("cuda", dtype=dt):
        print("autocast", torch.equal(x @ y, ref))

# float16 overflows past 65504
big = torch.full((1, 2), 300.0, device="cuda", dtype=torch.float16)
print((big @ big.t()).item())
