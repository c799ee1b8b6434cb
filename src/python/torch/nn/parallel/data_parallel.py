"""nn.DataParallel: replicate the module, scatter the batch, run each replica
on its device's current stream, gather on the output device
(torch/nn/parallel/data_parallel.py upstream)."""

import copy

import torch
from ..modules import Module
from ..parameter import Parameter


def _replicate(module, device_ids):
    replicas = []
    for d in device_ids:
        dev = torch.device("cuda", d)
        r = copy.copy(module)
        _copy_tree(r, module, dev)
        replicas.append(r)
    return replicas


def _copy_tree(dst, src, dev):
    object.__setattr__(dst, "_parameters", type(src._parameters)())
    object.__setattr__(dst, "_modules", type(src._modules)())
    object.__setattr__(dst, "_buffers", type(src._buffers)())
    for name, p in src._parameters.items():
        if p is None:
            dst._parameters[name] = None
        else:
            dst._parameters[name] = Parameter(p.to(dev), p.requires_grad) if p.device != dev else p
    for name, b in src._buffers.items():
        dst._buffers[name] = None if b is None else b.to(dev)
    for name, m in src._modules.items():
        c = copy.copy(m)
        _copy_tree(c, m, dev)
        dst._modules[name] = c


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not torch.cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(torch.cuda.device_count()))
        device_ids = [torch.cuda._get_device_index(d, True) for d in device_ids]
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = device_ids
        self.output_device = torch.cuda._get_device_index(output_device, True)
        self.src_device_obj = torch.device("cuda", device_ids[0])
        if len(device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for p in self.module.parameters():
            if p.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on device {} "
                                   "(device_ids[0]) but found one of them on device: {}"
                                   .format(self.src_device_obj, p.device))
        if len(self.device_ids) == 1:
            return self.module(*inputs, **kwargs)
        x = inputs[0]
        chunks = torch.cuda.comm.scatter(x, self.device_ids, dim=self.dim)
        used = self.device_ids[:len(chunks)]
        replicas = _replicate(self.module, used)
        outputs = []
        for r, c, d in zip(replicas, chunks, used):
            with torch.cuda.device(d):
                outputs.append(r(c, *inputs[1:], **kwargs))
        return torch.cuda.comm.gather(outputs, self.dim, destination=self.output_device)
