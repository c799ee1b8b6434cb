import torch
torch.manual_seed(0)
x = torch.randn(2, 3, 6, 6)
r = lambda t: [round(v, 4) for v in t.flatten().tolist()[:6]]
print(r(torch.max_pool2d(x, 2)), r(torch.max_pool1d(x[0], 3, 2)), r(torch.avg_pool1d(x[0], 2)))
print(r(torch.adaptive_avg_pool1d(x[0], 4)), [r(t) for t in torch.adaptive_max_pool1d(x[0], 4)])
print(r(torch.batch_norm(x, torch.ones(3), None, torch.zeros(3), torch.ones(3), True, 0.1, 1e-5, True)))
o, m, v = torch.native_batch_norm(x, None, None, None, None, True, 0.1, 1e-5)
print(r(o), r(m), r(v))
print(r(torch.group_norm(x, 3)), r(torch.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, True)))
print(r(torch.constant_pad_nd(x, (1, 1), 2.0)), torch.pixel_shuffle(torch.randn(1, 4, 2, 2), 2).shape)
print(r(torch.selu(x)), r(torch.celu(x)), r(torch.prelu(x, torch.tensor([0.1, 0.2, 0.3]))))
