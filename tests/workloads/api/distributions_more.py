# torch.distributions' Exponential, Laplace and Poisson (log_prob; its
# sampling needs torch.poisson, not modeled yet), their KL pairs, rsample's
# gradient and the validation errors. The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch
from torch.distributions import Exponential, Laplace, Poisson, kl_divergence
torch.manual_seed(0)
e = Exponential(torch.tensor([0.5, 2.0]))
print(e, e.sample(), e.rsample((2,)).shape, e.log_prob(torch.tensor([1.0, 0.3])), e.entropy(), e.mean, e.variance, e.cdf(torch.tensor([1.0, 1.0])))
l = Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))
print(l, l.sample(), l.log_prob(torch.tensor([0.2, 0.9])), l.entropy(), l.cdf(torch.tensor([0.0, 2.0])), l.icdf(torch.tensor([0.3, 0.8])))
p = Poisson(torch.tensor([1.5, 4.0]))
print(p, [round(v, 4) for v in p.log_prob(torch.tensor([0.0, 3.0])).tolist()], p.mean, p.mode)
print(kl_divergence(e, Exponential(1.0)), kl_divergence(l, Laplace(0.0, 1.0)), kl_divergence(p, Poisson(torch.tensor([2.0, 2.0]))))
rate = torch.tensor([1.0, 3.0], requires_grad=True)
Exponential(rate).rsample().sum().backward()
print(rate.grad)
for bad in (lambda: Exponential(-1.0), lambda: Poisson(torch.tensor([1.0])).log_prob(torch.tensor([0.5])), lambda: kl_divergence(e, p)):
    try: bad()
    except Exception as ex: print(type(ex).__name__, str(ex).replace("\n", " | "))
print(torch.rand(2))
print(kl_divergence(Laplace(torch.tensor([0.5, 1.0]), 2.0), torch.distributions.Normal(0.3, 1.5)))
