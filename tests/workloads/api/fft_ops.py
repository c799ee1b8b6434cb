# torch.fft (#14): every transform with n/s, dim and the three norms, real
# and complex inputs, integer promotion, the frequencies and shifts, and
# the argument errors. The expected output is what Debian's python3-torch
# 1.13 prints for this script (values rounded to 4 places: FFTW and
# PyTorch's pocketfft differ in the last bits).
import torch

dev = "cuda" if torch.cuda.is_available() else "cpu"


def show(t):
    t = t.cpu()
    if t.is_complex():
        return [complex(round(v.real, 4) + 0.0, round(v.imag, 4) + 0.0) for v in t.flatten().tolist()[:8]]
    return [round(v, 4) + 0.0 for v in t.flatten().tolist()[:8]]


def err(f):
    try:
        f()
        print("no error")
    except Exception as e:
        print(type(e).__name__, str(e).split("\n")[0])


x = (torch.arange(24.0).reshape(4, 6).sin() * 3).to(dev)
c = torch.complex(torch.arange(12.0).cos(), torch.arange(12.0).sin()).reshape(3, 4).to(dev)
for norm in (None, "backward", "ortho", "forward"):
    print("fft", norm, show(torch.fft.fft(x, norm=norm)), show(torch.fft.ifft(x, norm=norm)))
    print("fft c", norm, show(torch.fft.fft(c, norm=norm)), show(torch.fft.ifft(c, dim=0, norm=norm)))
    print("rfft", norm, show(torch.fft.rfft(x, norm=norm)), show(torch.fft.irfft(c, norm=norm)))
    print("hfft", norm, show(torch.fft.hfft(c, norm=norm)), show(torch.fft.ihfft(x, norm=norm)))
    print("fft2", norm, show(torch.fft.fft2(x, norm=norm)), show(torch.fft.ifft2(c, norm=norm)))
    print("rfft2", norm, show(torch.fft.rfft2(x, norm=norm)), show(torch.fft.irfft2(c, norm=norm)))
    print("fftn", norm, show(torch.fft.fftn(x, norm=norm)), show(torch.fft.ifftn(c, norm=norm)))
    print("rfftn", norm, show(torch.fft.rfftn(x, norm=norm)), show(torch.fft.irfftn(c, norm=norm)))

print("n", show(torch.fft.fft(x, n=4)), show(torch.fft.fft(x, n=9)), show(torch.fft.rfft(x, n=7, dim=0)))
print("irfft n", show(torch.fft.irfft(c, n=5)), show(torch.fft.irfft(c, n=9, dim=0)))
print("s", show(torch.fft.fftn(x, s=(3, 8))), show(torch.fft.rfftn(x, s=(2, -1))), show(torch.fft.irfftn(c, s=(4, 5))))
print("dims", show(torch.fft.fftn(x, dim=(1, 0))), show(torch.fft.rfftn(x, dim=(1, 0))), show(torch.fft.fft2(c, dim=(0,))))
print("shapes", torch.fft.rfft(x).shape, torch.fft.irfft(c).shape, torch.fft.rfftn(x, dim=(1, 0)).shape,
      torch.fft.hfft(c, n=7).shape, torch.fft.irfftn(c, s=(4, 5)).shape)
print("dtypes", torch.fft.fft(torch.arange(4)).dtype, torch.fft.rfft(x.double()).dtype,
      torch.fft.irfft(c.to(torch.complex128)).dtype, torch.fft.fftn(torch.ones(2, 2, dtype=torch.int32)).dtype)
print("strided", show(torch.fft.fft(x.t())), show(torch.fft.rfft(x[:, ::2])), show(torch.fft.fft(c[:, 1::2])))
print("roundtrip", torch.allclose(torch.fft.irfftn(torch.fft.rfftn(x), s=x.shape), x, atol=1e-5),
      torch.allclose(torch.fft.ifft(torch.fft.fft(c)), c, atol=1e-6))
print("freq", torch.fft.fftfreq(5), torch.fft.fftfreq(6, d=0.5), torch.fft.rfftfreq(7, 2.0))
print("freq dtype", torch.fft.fftfreq(4, dtype=torch.float64))
print("shift", torch.fft.fftshift(torch.arange(6)), torch.fft.ifftshift(torch.arange(7)),
      torch.fft.fftshift(torch.arange(6).reshape(2, 3), dim=1).tolist())
print("shift2", torch.fft.fftshift(torch.arange(6).reshape(2, 3)).tolist(),
      torch.fft.ifftshift(torch.fft.fftshift(torch.fft.fftfreq(5))))

err(lambda: torch.fft.fft(x, n=0))
err(lambda: torch.fft.fft(x, norm="bad"))
err(lambda: torch.fft.rfft(c))
err(lambda: torch.fft.rfftn(c))
err(lambda: torch.fft.fft(torch.ones(3, dtype=torch.float16)))
err(lambda: torch.fft.fftn(x, dim=(0, 0)))
err(lambda: torch.fft.fft(x, dim=2))
err(lambda: torch.fft.fftn(x, s=(2, 2, 2)))
err(lambda: torch.fft.fftn(x, s=(2, 2), dim=(0,)))
err(lambda: torch.fft.irfft(torch.ones(1, dtype=torch.cfloat)))
