# torch.distributions (#14/#16): Normal, Uniform, Bernoulli, Categorical,
# OneHotCategorical, Independent and kl_divergence: shapes, samples from
# the same generators (a seed gives PyTorch's values), log_prob with its
# gradient, entropy, argument and support validation with PyTorch's
# messages. The expected output is what Debian's python3-torch 1.13
# prints for this script.
import torch
import torch.nn.functional as F
from torch.distributions import (Bernoulli, Categorical, Independent, Normal, OneHotCategorical, Uniform,
                                 constraints, kl_divergence)

torch.manual_seed(0)
n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(n, n.batch_shape, n.event_shape, n.mean, n.stddev, n.variance)
print(n.sample(), n.sample((2,)).shape)
loc = torch.tensor([0.5, -0.5], requires_grad=True)
m = Normal(loc, 1.5)
x = m.rsample((3,))
print(x.shape, x.grad_fn.name())
lp = m.log_prob(x).sum()
lp.backward()
print(round(lp.item(), 4), loc.grad)
print(n.log_prob(torch.tensor([0.3, 0.3])), n.cdf(torch.tensor([0.0, 1.0])), n.icdf(torch.tensor([0.5, 0.9])))
print(n.entropy(), Normal(0., 1.).batch_shape, Normal(0., 1.).sample().shape)
u = Uniform(torch.tensor([0.0]), torch.tensor([2.0]))
print(u, u.sample((2,)), u.log_prob(torch.tensor([1.0, 1.5])), u.entropy(), u.mean, u.variance)
b = Bernoulli(probs=torch.tensor([0.3, 0.9]))
print(b, b.sample(), b.log_prob(torch.tensor([1.0, 0.0])), b.entropy(), b.logits)
bl = Bernoulli(logits=torch.tensor([0.0, 2.0]))
print(bl.probs, bl.mean, bl.variance)
c = Categorical(probs=torch.tensor([0.1, 0.2, 0.7]))
print(c, c.sample((5,)), c.log_prob(torch.tensor([0, 2])), c.entropy(), c.logits, c.mode)
cl = Categorical(logits=torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]]))
print(cl.batch_shape, cl.sample(), cl.probs, cl.enumerate_support().shape)
oh = OneHotCategorical(probs=torch.tensor([0.2, 0.8]))
print(oh.sample((3,)), oh.log_prob(torch.tensor([0.0, 1.0])), oh.event_shape)
ind = Independent(Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
print(ind, ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(2, 3)), ind.entropy())
print(kl_divergence(Normal(0., 1.), Normal(1., 2.)), kl_divergence(c, Categorical(logits=torch.zeros(3))))
print(kl_divergence(b, Bernoulli(probs=torch.tensor([0.5, 0.5]))), kl_divergence(u, Uniform(-1., 3.)))
print(n.expand((3, 2)).batch_shape, c.expand((4,)).sample().shape)
for bad in (lambda: Normal(0., -1.), lambda: Normal(0., 1.).log_prob(1.0), lambda: Categorical(torch.tensor([0.5, -0.5])),
            lambda: Bernoulli(probs=1.5), lambda: Uniform(1., 0.), lambda: Bernoulli(),
            lambda: Categorical(probs=torch.tensor([0.5, 0.5])).log_prob(torch.tensor(3)),
            lambda: kl_divergence(n, b)):
    try:
        bad()
    except Exception as e:
        print(type(e).__name__, str(e).replace("\n", " | "))
print(repr(constraints.positive), constraints.simplex, constraints.integer_interval(0, 3), constraints.real_vector)
print(Normal(0., 1., validate_args=False).log_prob(torch.tensor(0.5)))
probs = F.softmax(torch.tensor([[0.2, 0.3, 0.5]]), -1)
dist = Categorical(probs)
a = dist.sample()
print(a, -dist.log_prob(a) * 2.0)
print(torch.rand(2))
