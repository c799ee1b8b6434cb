# An embedding lookup with a token id past the table: a device-side assert
# in index_select's kernel. Once it surfaced, the device refuses all work.
import torch
torch.manual_seed(0)
emb = torch.nn.Embedding(4, 2, device="cuda")
tokens = torch.tensor([[1, 5], [0, 2]], device="cuda")
vectors = emb(tokens)
print("queued", tuple(vectors.shape))
try:
    print(vectors.sum().item())
except RuntimeError as err:
    print("first:", str(err).splitlines()[0])
try:
    emb(torch.tensor([0], device="cuda"))
except RuntimeError as err:
    print("later:", str(err).splitlines()[0])
print("cpu still works:", torch.nn.functional.embedding(torch.tensor([1]), torch.ones(4, 2)).sum().item())
