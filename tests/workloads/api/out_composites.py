# out= of the composite ops that took it and ignored it (deg2rad ... polygamma,
# frexp, histogram, linalg.norm): the result written into out, each op's
# dtype rule and message, against python3-torch.
import torch, warnings
warnings.simplefilter("ignore")
x = torch.tensor([1., 2., 3.]); y = torch.tensor([2., 1., 4.]); xi = torch.tensor([4, 6, 9]); yi = torch.tensor([6, 4, 3])
tests = {
 "deg2rad": lambda o: torch.deg2rad(x, out=o), "rad2deg": lambda o: torch.rad2deg(x, out=o), "ldexp": lambda o: torch.ldexp(x, torch.tensor([1]), out=o),
 "isneginf": lambda o: torch.isneginf(x, out=o), "isposinf": lambda o: torch.isposinf(x, out=o), "heaviside": lambda o: torch.heaviside(x, y, out=o),
 "logaddexp": lambda o: torch.logaddexp(x, y, out=o), "logaddexp2": lambda o: torch.logaddexp2(x, y, out=o), "xlogy": lambda o: torch.xlogy(x, y, out=o),
 "sinc": lambda o: torch.sinc(x, out=o), "gcd": lambda o: torch.gcd(xi, yi, out=o), "lcm": lambda o: torch.lcm(xi, yi, out=o), "signbit": lambda o: torch.signbit(x, out=o),
 "logcumsumexp": lambda o: torch.logcumsumexp(x, 0, out=o), "fmax": lambda o: torch.fmax(x, y, out=o), "fmin": lambda o: torch.fmin(x, y, out=o),
 "logit": lambda o: torch.logit(x / 4, out=o), "sgn": lambda o: torch.sgn(x, out=o), "quantile": lambda o: torch.quantile(x, 0.5, out=o),
 "nanquantile": lambda o: torch.nanquantile(x, 0.5, out=o), "polygamma": lambda o: torch.polygamma(1, x, out=o),
}
for name, f in tests.items():
    for dt in (torch.float32, torch.float64, torch.int64, torch.bool):
        o = torch.zeros(3, dtype=dt)
        try:
            r = f(o)
            print(name, dt, "same" if r is o else "other", o.tolist())
        except Exception as e:
            print(name, dt, "EXC", type(e).__name__, str(e)[:100])
m, e = torch.empty(3), torch.empty(3, dtype=torch.int32)
print(torch.frexp(x, out=(m, e)), m, e)
h, b = torch.empty(2), torch.empty(3)
print(torch.histogram(x, 2, out=(h, b)), h, b)
x = torch.tensor([3., 4.])
for dt in (torch.float32, torch.float64, torch.int64):
    o = torch.zeros((), dtype=dt)
    try: r = torch.linalg.norm(x, out=o); print(dt, r is o, o)
    except Exception as e: print(dt, e)
