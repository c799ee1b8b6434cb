# The matmul family's Python side. torch.matmul and @ are the core's
# (ts_ops_matmul: mm, or one aten::bmm launch over a broadcast batch);
# bmm is that launch without broadcasting, checked here first with
# ATen's messages (PyTorch 1.13: aten/src/ATen/native/LinearAlgebra.cpp).

import torch
from torch import Tensor


def bmm(input, mat2, *, out=None):
    if out is not None:
        raise NotImplementedError("torch.bmm(out=) is not supported by Tensorscope yet")
    for name, t in (("batch1", input), ("batch2", mat2)):
        if t.dim() != 3:
            raise RuntimeError("%s must be a 3D tensor" % name)
    if mat2.shape[0] != input.shape[0] or mat2.shape[1] != input.shape[2]:
        raise RuntimeError("Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: "
                           "[%d, %d]." % (input.shape[0], input.shape[2], mat2.shape[0], mat2.shape[1]))
    return torch._C._bmm(input, mat2)


def _install():
    Tensor.bmm = bmm
    torch.bmm = bmm
