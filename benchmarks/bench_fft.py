# Time per call of torch.fft transforms of a batch of signals (CPU tensors,
# so that both sides compute: FFTW here, pocketfft or MKL in PyTorch). Run
# by bench-fft: under tensorscope-cli and under /usr/bin/python3 with
# Debian's python3-torch.
import time

import torch

torch.manual_seed(0)
x = torch.randn(64, 1024)
c = torch.randn(64, 1024, dtype=torch.cfloat)
img = torch.randn(8, 128, 128)
CASES = [
    ("rfft_64x1024", lambda: torch.fft.rfft(x)),
    ("irfft_64x1024", lambda: torch.fft.irfft(c[:, :513], n=1024)),
    ("fft_c64_64x1024", lambda: torch.fft.fft(c)),
    ("fft2_8x128x128", lambda: torch.fft.fft2(img)),
    ("rfft_small_16", lambda: torch.fft.rfft(x[0, :16])),
]
N = 200
for name, f in CASES:
    for _ in range(10):
        f()
    start = time.perf_counter_ns()
    for _ in range(N):
        f()
    print("op", name, (time.perf_counter_ns() - start) / N)
