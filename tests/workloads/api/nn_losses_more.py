# The embedding, ranking and margin losses, the Poisson and Gaussian NLLs,
# multilabel soft margin, their modules (#16), CosineSimilarity,
# PairwiseDistance, Bilinear, gumbel_softmax and exponential_: values,
# gradients and errors. The expected output is what Debian's python3-torch
# 1.13 prints for this script.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(4, 5, requires_grad=True)
y = torch.randn(4, 5)
t = torch.tensor([1, -1, 1, -1])
tb = (torch.rand(4, 5) > 0.5).float()
cls = torch.tensor([0, 3, 4, 1])


def run(name, fn):
    try:
        out = fn()
        g = torch.autograd.grad(out.sum(), x, allow_unused=True)[0]
        print(name, [round(v, 4) for v in out.reshape(-1).tolist()][:6], None if g is None else round(g.abs().sum().item(), 4))
    except Exception as e:
        print(name, "!!", type(e).__name__, e)


for red in ("mean", "sum", "none"):
    run("soft_margin " + red, lambda: F.soft_margin_loss(x, torch.sign(y), reduction=red))
    run("poisson " + red, lambda: F.poisson_nll_loss(x, y.abs(), reduction=red))
    run("poisson full nolog", lambda: F.poisson_nll_loss(x.abs() + 0.1, y.abs() * 3, log_input=False, full=True, reduction=red))
    run("gaussian " + red, lambda: F.gaussian_nll_loss(x, y, torch.ones(4, 5) * 0.5, reduction=red))
    run("gaussian het", lambda: F.gaussian_nll_loss(x, y, torch.ones(4, 1) * 0.5, full=True, reduction=red))
    run("multilabel " + red, lambda: F.multilabel_soft_margin_loss(x, tb, reduction=red))
    run("multilabel w", lambda: F.multilabel_soft_margin_loss(x, tb, weight=torch.arange(1., 6.), reduction=red))
    run("cosine_emb " + red, lambda: F.cosine_embedding_loss(x, y, t, margin=0.2, reduction=red))
    run("margin_rank " + red, lambda: F.margin_ranking_loss(x[:, 0], y[:, 0], t.float(), margin=0.1, reduction=red))
    run("hinge " + red, lambda: F.hinge_embedding_loss(x, torch.sign(y), reduction=red))
    run("triplet " + red, lambda: F.triplet_margin_loss(x, y, y.flip(0), reduction=red))
    run("triplet swap p1", lambda: F.triplet_margin_loss(x, y, y.flip(0), p=1, swap=True, reduction=red))
    run("multi_margin " + red, lambda: F.multi_margin_loss(x, cls, reduction=red))
    run("multi_margin p2 w", lambda: F.multi_margin_loss(x, cls, p=2, margin=0.5, weight=torch.arange(1., 6.), reduction=red))
run("bad reduction", lambda: F.soft_margin_loss(x, y, reduction="avg"))
run("gaussian bad var", lambda: F.gaussian_nll_loss(x, y, torch.ones(3)))
run("gaussian neg var", lambda: F.gaussian_nll_loss(x, y, -torch.ones(4, 5)))
run("multi_margin p3", lambda: F.multi_margin_loss(x, cls, p=3))
run("margin_rank dims", lambda: F.margin_ranking_loss(x, y[:, 0], t.float()))
print(nn.CosineEmbeddingLoss(0.5), nn.TripletMarginLoss(), nn.MultiMarginLoss(), nn.PoissonNLLLoss(), nn.GaussianNLLLoss())
print(nn.CosineSimilarity(), nn.PairwiseDistance(), nn.SoftMarginLoss(), nn.MultiLabelSoftMarginLoss(), nn.HingeEmbeddingLoss(), nn.MarginRankingLoss())
print(nn.CosineEmbeddingLoss()(x, y, t).item() == F.cosine_embedding_loss(x, y, t).item())
print(nn.CosineSimilarity(dim=1)(x, y).shape, nn.PairwiseDistance(p=1)(x, y).shape)
b = nn.Bilinear(5, 3, 2)
print(b, b.weight.shape, b.bias.shape)
o = b(x, torch.randn(4, 3))
print([round(v, 3) for v in o.reshape(-1).tolist()], o.grad_fn is not None)
g = F.gumbel_softmax(torch.randn(2, 4), tau=0.5)
print([round(v, 4) for v in g.reshape(-1).tolist()])
gh = F.gumbel_softmax(torch.randn(2, 4), hard=True)
print(gh.tolist(), gh.sum(-1).tolist())
print(torch.rand(2))
torch.manual_seed(0)
print(torch.empty(3).exponential_(2.5), torch.empty(2, dtype=torch.float64).exponential_())
print(torch.empty(2).exponential_(0))
try:
    torch.empty(2).exponential_(-1)
except Exception as e:
    print(type(e).__name__, e)
