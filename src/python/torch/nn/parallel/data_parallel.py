"""nn.DataParallel: replicate the module, scatter the inputs, run each
replica on its device's current stream, gather on the output device; in
backward the gradients flow back through Broadcast's backward and are
summed into the module's own parameters on device_ids[0]
(torch/nn/parallel/data_parallel.py upstream). The replicas run one after
the other on the host thread: the devices overlap, the Python threads of
PyTorch's parallel_apply are not modeled."""

import copy

import torch
from ..modules import Module


def _broadcast_coalesced_reshape(tensors, devices, detach):
    from ._functions import Broadcast
    if detach:
        return torch.cuda.comm.broadcast_coalesced(tensors, devices)
    if len(tensors) == 0:
        return []
    copies = Broadcast.apply(devices, *tensors)
    return [copies[i:i + len(tensors)] for i in range(0, len(copies), len(tensors))]


def _replicate(module, device_ids, detach=False):
    """One replica per device, as torch/nn/parallel/replicate.py makes
    them: the parameters go through Broadcast (10 MiB buckets, flattened
    on device_ids[0] and copied whole: each other device's replica
    weights are views of its bucket buffers), whose backward sums the
    replicas' gradients back onto device_ids[0] the same way
    (ReduceAddCoalesced), where AccumulateGrad gives them to the
    module's parameters. On the source device the copies are the
    originals (aliases), so BatchNorm's running statistics of the first
    replica are the module's. A tensor shared by several modules (tied
    weights: GPT-2's embedding and output layer) is one parameter, so it
    is broadcast once and stays shared in each replica."""
    params = list(module.parameters())
    param_copies = _broadcast_coalesced_reshape(params, device_ids, detach)
    buffers = list(module.buffers())
    buffers_rg = [b for b in buffers if b.requires_grad and not detach]
    buffers_not_rg = [b for b in buffers if not (b.requires_grad and not detach)]
    copies_rg = _broadcast_coalesced_reshape(buffers_rg, device_ids, detach)
    copies_not_rg = _broadcast_coalesced_reshape(buffers_not_rg, device_ids, True)
    replicas = []
    for j in range(len(device_ids)):
        memo = {}
        for originals, copies in ((params, param_copies), (buffers_rg, copies_rg),
                                  (buffers_not_rg, copies_not_rg)):
            if originals:
                memo.update(zip(map(id, originals), copies[j]))
        r = copy.copy(module)
        _copy_tree(r, module, memo)
        replicas.append(r)
    return replicas


def _copy_tree(dst, src, memo):
    object.__setattr__(dst, "_parameters", type(src._parameters)())
    object.__setattr__(dst, "_modules", type(src._modules)())
    object.__setattr__(dst, "_buffers", type(src._buffers)())
    for name, p in src._parameters.items():
        dst._parameters[name] = None if p is None else memo[id(p)]
    for name, b in src._buffers.items():
        dst._buffers[name] = None if b is None else memo[id(b)]
    for name, m in src._modules.items():
        c = copy.copy(m)
        _copy_tree(c, m, memo)
        dst._modules[name] = c


def _scatter(obj, device_ids, dim):
    """Tensors are split along dim onto the devices (differentiably:
    narrow and .to()); containers are walked; anything else is given to
    every replica as it is (torch/nn/parallel/scatter_gather.py)."""
    if isinstance(obj, torch.Tensor):
        return list(torch.cuda.comm.scatter(obj, device_ids, dim=dim))
    if isinstance(obj, tuple) and len(obj) > 0:
        if hasattr(obj, "_fields"):
            return [type(obj)(*args) for args in zip(*[_scatter(o, device_ids, dim) for o in obj])]
        return list(zip(*[_scatter(o, device_ids, dim) for o in obj]))
    if isinstance(obj, list) and len(obj) > 0:
        return [list(x) for x in zip(*[_scatter(o, device_ids, dim) for o in obj])]
    if isinstance(obj, dict) and len(obj) > 0:
        return [type(obj)(x) for x in zip(*[_scatter(kv, device_ids, dim) for kv in obj.items()])]
    return [obj for _ in device_ids]


def _scatter_kwargs(inputs, kwargs, device_ids, dim):
    inputs = _scatter(inputs, device_ids, dim) if inputs else []
    kwargs = _scatter(kwargs, device_ids, dim) if kwargs else []
    if len(inputs) < len(kwargs):
        inputs.extend(() for _ in range(len(kwargs) - len(inputs)))
    elif len(kwargs) < len(inputs):
        kwargs.extend({} for _ in range(len(inputs) - len(kwargs)))
    return tuple(inputs), tuple(kwargs)


def _gather(outputs, target_device, dim):
    out = outputs[0]
    if isinstance(out, torch.Tensor):
        return torch.cuda.comm.gather(outputs, dim, destination=target_device)
    if out is None:
        return None
    if isinstance(out, dict):
        if not all(len(out) == len(d) for d in outputs):
            raise ValueError("All dicts must have the same number of keys")
        return type(out)((k, _gather([d[k] for d in outputs], target_device, dim)) for k in out)
    if isinstance(out, tuple) and hasattr(out, "_fields"):
        return type(out)(*(_gather(list(x), target_device, dim) for x in zip(*outputs)))
    return type(out)(_gather(list(x), target_device, dim) for x in zip(*outputs))


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
        inputs, kwargs = _scatter_kwargs(inputs, kwargs, self.device_ids, self.dim)
        if not inputs and not kwargs:
            inputs, kwargs = ((),), ({},)
        used = self.device_ids[:len(inputs)]
        replicas = _replicate(self.module, used, not torch.is_grad_enabled())
        outputs = []
        for r, args, kw, d in zip(replicas, inputs, kwargs, used):
            with torch.cuda.device(d):
                outputs.append(r(*args, **kw))
        return _gather(outputs, self.output_device, self.dim)
