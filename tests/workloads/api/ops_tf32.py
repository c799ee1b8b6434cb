# The float32 matmul precision: "highest" by default; allow_tf32 and
# set_float32_matmul_precision are one setting, and on a (simulated) GPU a
# float32 matmul allowed TF32 is timed at the tensor-core TF32 rate, faster
# than FP32, with the same values. Expected: PyTorch 1.13's flags (no GPU
# there: the timing lines are what the simulator must print).
import torch

print(torch.get_float32_matmul_precision(), torch.backends.cuda.matmul.allow_tf32)
torch.backends.cuda.matmul.allow_tf32 = True
print(torch.get_float32_matmul_precision())
torch.set_float32_matmul_precision("medium")
print(torch.backends.cuda.matmul.allow_tf32)
torch.set_float32_matmul_precision("highest")
print(torch.backends.cuda.matmul.allow_tf32)


def timed(a, b):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    c = a @ b
    end.record()
    end.synchronize()
    return start.elapsed_time(end), c


if torch.cuda.is_available():
    torch.manual_seed(0)
    a = torch.randn(1024, 1024).cuda()
    b = torch.randn(1024, 1024).cuda()
    fp32, c32 = timed(a, b)
    torch.set_float32_matmul_precision("high")
    tf32, ctf = timed(a, b)
    torch.set_float32_matmul_precision("highest")
    again, _ = timed(a, b)
    h16, _ = timed(a.half(), b.half())
    print("tf32 faster:", tf32 < fp32 / 4, "same values:", torch.equal(c32, ctf), "back:", again == fp32,
          "fp16 faster:", h16 < tf32)
else:
    print("tf32 faster: True same values: True back: True fp16 faster: True")
