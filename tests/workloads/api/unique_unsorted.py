# torch.unique(sorted=False) of CPU tensors in PyTorch 1.13's order (its
# std::unordered_set's: hash buckets, collisions, growth of the table,
# -0.0, NaN), with the inverse and the counts; bool comes sorted. The
# expected output is Debian's python3-torch's for this script.
import torch

nan = float("nan")
cases = [
    torch.tensor([3, 1, 2, 3, 1, 5]),
    torch.tensor([93, 65, 26, 77, 55, 2, 28]),                   # collisions in 13 buckets
    (torch.arange(300) * 7919) % 1000 - 500,                     # growth, negatives
    torch.tensor([[3, 1], [2, 3]], dtype=torch.int32),
    torch.tensor([200, 3, 200, 7], dtype=torch.uint8),
    torch.tensor([1.0, nan, 2.0, nan, 1.0]),
    torch.tensor([0.5, -0.0, 0.0, 1.25, 0.1]),
    (torch.arange(-25, 25, dtype=torch.float64) / 8).repeat(2),
    torch.tensor([True, False, True]),
    torch.tensor([], dtype=torch.int64),
]
for t in cases:
    values, inverse, counts = torch.unique(t, sorted=False, return_inverse=True, return_counts=True)
    print(t.dtype, values.tolist())
    print("  inverse", inverse.tolist(), "counts", counts.tolist())
    print("  method", t.unique(sorted=False).tolist() == values.tolist())
