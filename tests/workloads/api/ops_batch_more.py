# multilabel_margin_loss, triplet_margin_with_distance_loss, channel_shuffle
# and their modules, select/slice/diagonal_scatter, F.pdist, cauchy_ and
# geometric_ (ATen's CPU draws), Tensor.put, hardshrink, adjoint and the
# layout predicates (#14/#16). The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch, torch.nn.functional as F, torch.nn as nn
x = torch.tensor([[0.1, 0.2, 0.4, 0.8], [0.5, 0.3, 0.9, 0.2]], requires_grad=True)
y = torch.tensor([[3, 0, -1, 1], [1, 2, -1, 0]])
l = F.multilabel_margin_loss(x, y)
l.backward()
print(l.item(), F.multilabel_margin_loss(x, y, reduction="none").tolist(), x.grad)
print(F.channel_shuffle(torch.arange(12.).reshape(1, 6, 2, 1), 3).flatten(), nn.ChannelShuffle(2))
torch.manual_seed(0)
a, p, n = torch.randn(3, 4), torch.randn(3, 4), torch.randn(3, 4)
print(nn.TripletMarginWithDistanceLoss(margin=0.5), round(F.triplet_margin_with_distance_loss(a, p, n).item(), 5),
      round(nn.TripletMarginWithDistanceLoss(distance_function=lambda u, v: (u - v).abs().sum(-1), swap=True)(a, p, n).item(), 5))
print(torch.zeros(4).select_scatter(torch.tensor(5.), 0, 1), torch.zeros(2, 3).slice_scatter(torch.ones(2, 1), dim=1, start=1, end=2, step=1),
      torch.zeros(3, 3).diagonal_scatter(torch.ones(2), 1), torch.zeros(3, 3).diagonal_scatter(torch.ones(2), -1))
print(torch.pdist(a).shape, F.pdist(a, 1).shape, torch.ones(2).is_mps, torch.ones(2).resolve_neg().shape, torch.ones(2, 3).adjoint().shape)
print(torch.empty(4).cauchy_(), torch.empty(4, dtype=torch.float64).geometric_(0.3), torch.arange(4.).put(torch.tensor([0]), torch.tensor([9.])))
print(torch.tensor([-1.0, 0.2, 0.8]).hardshrink(0.5), torch.ones(5).unsafe_chunk(2)[0].shape)
