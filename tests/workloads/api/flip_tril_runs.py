# flip as a copy walked backwards, and tril/triu of dense rows as runs, over
# dims, diagonals, layouts, dtypes, in place and gradients: digests of the
# elements against python3-torch.
import torch, hashlib
g = torch.Generator().manual_seed(2)
x = torch.randn(4, 5, 6, generator=g)
h = lambda t: hashlib.md5(t.contiguous().numpy().tobytes()).hexdigest()[:10]
print([h(x.flip(d)) for d in ((0,), (1,), (2,), (0, 2), (0, 1, 2), (-1,))], h(x.t() if False else x.transpose(0, 2).flip(1)), h(x[:, ::2].flip(2)))
print(torch.fliplr(torch.arange(6).reshape(2, 3)), torch.flipud(torch.arange(6).reshape(2, 3)), torch.tensor(5.).flip(0), torch.empty(0, 3).flip(1).shape)
print(torch.arange(10, dtype=torch.int8).flip(0), torch.tensor([True, False]).flip(0), torch.tensor([1+2j, 3j]).flip(0), torch.arange(4.).reshape(2,2).half().flip(1))
y = torch.randn(3, 4, requires_grad=True); y.flip(1).sum().backward(); print(y.grad.sum())

for shape in ((5, 7), (7, 5), (3, 4, 6), (1, 1), (6, 6)):
    x = torch.randn(*shape, generator=g)
    out = []
    for d in (-8, -2, -1, 0, 1, 3, 9):
        out += [h(x.tril(d)), h(x.triu(d)), h(x.transpose(-1, -2).tril(d)), h(x.clone().tril_(d)), h(x.clone().triu_(d))]
    print(shape, out)
print(torch.ones(3, 4, dtype=torch.int64).tril(), torch.ones(2, 3, dtype=torch.bool).triu(1), torch.empty(0, 3).tril().shape)
y = torch.randn(4, 4, requires_grad=True); y.tril(-1).sum().backward(); print(y.grad)
