import torch


class Parameter(torch.Tensor):
    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = torch.empty(0)
        return torch._C._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + torch._C.TensorBase.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (Parameter, (self.data, self.requires_grad))
