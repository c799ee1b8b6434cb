# Advanced indexing whose result copies whole blocks of self's trailing
# dims (one index tensor on leading dims: rows of a matrix), and the
# layouts that do not, against python3-torch.
import torch, hashlib
torch.manual_seed(0)
a = torch.randn(6, 5, 4)
i = torch.tensor([0, 5, -1, 2]); j = torch.tensor([[1, 0], [4, 3]])
print(a[i].shape, torch.equal(a[i], a.index_select(0, i % 6)), a[:, j].shape, a[i, 1:3].shape, a[:, [1, 2], [0, 3]], a[i, :, 2], a[j, 1], a.t()[[0, 1]] if False else a.transpose(0, 2)[[0, 3]])
print(a[..., [1]].shape, a[torch.tensor([True, False, True, False, True, True])].shape, a[None, i].shape)
b = torch.randn(512, 512); idx = torch.randint(0, 512, (512,))
print(hashlib.md5(b[idx].numpy().tobytes()).hexdigest(), hashlib.md5(b[:, idx].numpy().tobytes()).hexdigest(), hashlib.md5(b[idx, :7].numpy().tobytes()).hexdigest())
try: a[torch.tensor([6])]
except IndexError as e: print(e)
e = torch.empty(0, 3)[torch.tensor([], dtype=torch.long)]; print(e.shape)
