# torch.distributions.MultivariateNormal (#14/#16): covariance, precision
# and scale_tril parameterizations, samples, log_prob over a broadcast
# batch with its gradient, entropy, the matrices it derives, validation
# (not positive definite), the constraints, and KL between two. The
# expected output is what Debian's python3-torch 1.13 prints.
import torch
from torch.distributions import MultivariateNormal, constraints
torch.manual_seed(0)
cov = torch.tensor([[2.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 0.5]])
m = MultivariateNormal(torch.zeros(3), covariance_matrix=cov)
print(m, m.batch_shape, m.event_shape, m.sample(), m.rsample((2,)).shape)
v = torch.tensor([[0.5, -0.2, 0.1], [1.0, 1.0, 1.0]])
print([round(x, 5) for x in m.log_prob(v).tolist()], round(m.entropy().item(), 5), m.variance)
print(m.scale_tril, m.precision_matrix.round(decimals=4))
mp = MultivariateNormal(torch.ones(3), precision_matrix=torch.inverse(cov) if hasattr(torch, "inverse") else None)
print([round(x, 4) for x in mp.log_prob(v).tolist()], mp.scale_tril.round(decimals=4))
L = torch.linalg.cholesky(cov)
loc = torch.zeros(4, 3, requires_grad=True)
mb = MultivariateNormal(loc, scale_tril=L)
lp = mb.log_prob(torch.randn(2, 4, 3))
lp.sum().backward()
print(mb.batch_shape, lp.shape, [round(x, 4) for x in loc.grad[0].tolist()])
for bad in (lambda: MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]])),
            lambda: MultivariateNormal(torch.zeros(2)), lambda: MultivariateNormal(torch.tensor(0.0), torch.eye(1))):
    try: bad()
    except Exception as e: print(type(e).__name__, str(e).split("\n")[0])
print(constraints.positive_definite.check(cov), constraints.lower_cholesky.check(L))
from torch.distributions import kl_divergence
q = MultivariateNormal(torch.ones(3), covariance_matrix=torch.eye(3) * 2)
print(round(kl_divergence(m, q).item(), 5), [round(x, 5) for x in kl_divergence(mb, MultivariateNormal(torch.ones(3), scale_tril=torch.eye(3))).tolist()])
