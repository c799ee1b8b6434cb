# lgamma, digamma and polygamma(0|1) (#14): ATen's calc_digamma and
# calc_trigamma values to the bit (lgamma to 6 digits: PyTorch's CPU lgamma
# is SLEEF's, which can differ from libm's in the last place), reflection
# for negatives, poles, gradients and node names. The expected output is
# what Debian's python3-torch 1.13 prints for this script.
import torch
x = torch.tensor([0.5, 1.0, 2.5, 10.0, 23.7, -0.5, -2.3, 0.0, -3.0, 1e-3, 150.0], dtype=torch.float64)
for dt in (torch.float32, torch.float64):
    t = x.to(dt)
    # lgamma to 6 digits: PyTorch's CPU lgamma is SLEEF's, 1 ulp from libm's
    print(dt, [float("%.6g" % v) for v in torch.lgamma(t).tolist()])
    print(" ", torch.digamma(t).tolist())
    print(" ", torch.polygamma(1, t).tolist())
    print(" ", torch.polygamma(0, t).equal(t.digamma()), t.polygamma(1).equal(torch.polygamma(1, t)))
w = torch.tensor([0.7, 3.2, -1.4], requires_grad=True)
y = (torch.lgamma(w) + torch.digamma(w) * 2).sum()
y.backward()
print(w.grad, torch.lgamma(w).grad_fn.name(), torch.digamma(w).grad_fn.name(), torch.polygamma(1, w).grad_fn.name())
print(torch.lgamma(torch.tensor([1, 2, 5])), torch.tensor([3.0]).lgamma_(), torch.tensor([3.0]).polygamma_(1))
for bad in (lambda: torch.polygamma(-1, w),):
    try: bad()
    except Exception as e: print(type(e).__name__, e)
