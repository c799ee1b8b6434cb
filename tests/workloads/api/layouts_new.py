# torch.layout objects (strided, sparse_coo, ...), Tensor.layout and the
# legacy Tensor.new constructor. The expected output is what Debian's
# python3-torch 1.13 prints for this script.
import torch
t = torch.ones(2, dtype=torch.float64)
print(torch.strided, repr(torch.sparse_coo), t.layout, type(torch.strided).__name__, t.layout == torch.strided)
print(t.new(2, 3).shape, t.new(2, 3).dtype, t.new([1, 2]), t.new().shape, t.new(torch.Size([2])).shape)
print(torch.zeros(2, layout=torch.strided).layout)
