# torch.backends' flags and the global numerics settings as state, with
# PyTorch's defaults and checks. The expected output is what Debian's
# python3-torch 1.13 prints for this script (`python3 backends_flags.py`),
# except the allow_bf16_reduced_precision_reduction lines, which 1.13 does
# not have: those are PyTorch 2's default (True) and its message.
import torch
from checks import check


matmul = torch.backends.cuda.matmul
cudnn = torch.backends.cudnn
print("defaults", matmul.allow_tf32, matmul.allow_fp16_reduced_precision_reduction,
      cudnn.allow_tf32, cudnn.benchmark, cudnn.deterministic, cudnn.enabled)
print("bf16 reduction", matmul.allow_bf16_reduced_precision_reduction)
print("precision", torch.get_float32_matmul_precision())
matmul.allow_tf32 = True
print("allow_tf32 = True", torch.get_float32_matmul_precision())
torch.set_float32_matmul_precision("medium")
print("medium", matmul.allow_tf32, torch.get_float32_matmul_precision())
torch.set_float32_matmul_precision("highest")
print("highest", matmul.allow_tf32, torch.get_float32_matmul_precision())
matmul.allow_fp16_reduced_precision_reduction = False
cudnn.benchmark = True
cudnn.deterministic = True
print("set", matmul.allow_fp16_reduced_precision_reduction, cudnn.benchmark, cudnn.deterministic)
with cudnn.flags(enabled=False, benchmark=False):
    print("in flags()", cudnn.enabled, cudnn.benchmark, cudnn.deterministic)
print("after flags()", cudnn.enabled, cudnn.benchmark, cudnn.deterministic)
print("deterministic", torch.are_deterministic_algorithms_enabled(),
      torch.is_deterministic_algorithms_warn_only_enabled())
torch.use_deterministic_algorithms(True, warn_only=True)
print("deterministic", torch.are_deterministic_algorithms_enabled(),
      torch.is_deterministic_algorithms_warn_only_enabled())
torch.use_deterministic_algorithms(False)
print("deterministic", torch.are_deterministic_algorithms_enabled())
print("mps", torch.backends.mps.is_available())
# Tensorscope's kernels are not cuDNN's: as a PyTorch build without cuDNN
# (Debian's CPU build is one) says
print("cudnn", cudnn.is_available(), cudnn.version(), cudnn.is_acceptable(torch.ones(1)))

check(lambda: setattr(matmul, "allow_tf32", 1))
check(lambda: setattr(matmul, "allow_fp16_reduced_precision_reduction", 1))
check(lambda: setattr(matmul, "allow_bf16_reduced_precision_reduction", "yes"))
check(lambda: setattr(cudnn, "benchmark", 1))
check(lambda: setattr(cudnn, "enabled", None))
check(lambda: setattr(cudnn, "deterministic", 0))
check(lambda: setattr(cudnn, "allow_tf32", 1.0))
check(lambda: torch.set_float32_matmul_precision(1))
check(lambda: torch.use_deterministic_algorithms(1))
check(lambda: torch.use_deterministic_algorithms(True, warn_only=1))
try:
    matmul.allow_tf33 = True
except AssertionError as err:
    print("AssertionError:", err)
