"""torch.cuda.comm: collectives as copies and kernels on the devices' streams
(torch/nn/parallel/comm.py upstream)."""

import torch
from torch import _unmodeled

__all__ = ["broadcast", "broadcast_coalesced", "reduce_add", "reduce_add_coalesced", "scatter", "gather"]


def _dev(d):
    if isinstance(d, torch.device):
        return d.index if d.index is not None else torch.cuda.current_device()
    if isinstance(d, str):
        return _dev(torch.device(d))
    return d


def broadcast(tensor, devices=None, *, out=None):
    if (devices is None) == (out is None):
        raise RuntimeError("Exactly one of 'devices' and 'out' must be specified, but got devices={} and out={}"
                           .format(devices, out))
    if out is not None:
        for o in out:
            o.copy_(tensor)
        return list(out)
    # torch._C._broadcast returns a list, whatever the docstring says.
    return list(tensor if tensor.is_cuda and tensor.get_device() == _dev(d) else
                 tensor.to(torch.device("cuda", _dev(d))) for d in devices)


def _buckets(tensors, buffer_size):
    """torch/csrc/utils/tensor_flatten.cpp's take_tensors: one open bucket
    a type, closed (with the tensor that fills it) at buffer_size bytes."""
    open_, buckets = {}, []
    for t in tensors:
        bucket = open_.setdefault(t.type(), [[], 0])
        bucket[0].append(t)
        bucket[1] += t.numel() * t.element_size()
        if bucket[1] >= buffer_size:
            buckets.append(bucket[0])
            del open_[t.type()]
    buckets.extend(b[0] for b in open_.values())
    return buckets


def broadcast_coalesced(tensors, devices, buffer_size=10485760):
    """torch/csrc/cuda/comm.cpp: the first device's list is the tensors
    themselves; each bucket is flattened on it (a temporary, unless the
    bucket is one tensor) and copied whole to every other device, whose
    tensors are views of that buffer."""
    from torch._utils import _flatten_dense_tensors, _unflatten_dense_tensors

    devices = [_dev(d) for d in devices]
    outputs = [list(tensors)] + [[] for _ in devices[1:]]
    buckets = _buckets(tensors, buffer_size)
    for bucket in buckets:
        flat = _flatten_dense_tensors(bucket)
        for i, d in enumerate(devices[1:], 1):
            outputs[i].extend(_unflatten_dense_tensors(flat.to(torch.device("cuda", d)), bucket))
        del flat
    if len({t.type() for t in tensors}) > 1:
        from torch._utils import _reorder_tensors_as
        outputs = [list(_reorder_tensors_as(o, tensors)) for o in outputs]
    return outputs


def reduce_add(inputs, destination=None):
    if destination is None:
        destination = torch.cuda.current_device()
    dest = torch.device("cuda", _dev(destination)) if _dev(destination) >= 0 else torch.device("cpu")
    shape = inputs[0].shape
    for i, t in enumerate(inputs):
        if t.device.type == "cpu":
            raise AssertionError("reduce_add expects all inputs to be on GPUs")
        if t.shape != shape:
            got = "x".join(str(x) for x in t.shape)
            expected = "x".join(str(x) for x in shape)
            raise ValueError("input {} has invalid size: got {}, but expected {}".format(i, got, expected))
    others = list(inputs)
    at_dest = [i for i, t in enumerate(others) if t.device == dest]
    if at_dest:
        result = others.pop(at_dest[0]).clone()
    else:
        result = others.pop(0).to(dest)
    for t in others:
        result += t.to(dest, non_blocking=True)
    return result


def reduce_add_coalesced(inputs, destination=None, buffer_size=10485760):
    """torch/cuda/comm.py: each device's tensors flattened a bucket at a
    time, the flat buffers summed on the destination, the sums' views
    returned."""
    from torch._utils import _flatten_dense_tensors, _reorder_tensors_as, _take_tensors, \
        _unflatten_dense_tensors

    output = []
    ref_order = list(inputs[0])
    for chunks in zip(*[_take_tensors(list(ts), buffer_size) for ts in inputs]):
        flat_result = reduce_add([_flatten_dense_tensors(chunk) for chunk in chunks], destination)
        output.extend(t.detach() for t in _unflatten_dense_tensors(flat_result, chunks[0]))
    return tuple(_reorder_tensors_as(output, ref_order))


def scatter(tensor, devices=None, chunk_sizes=None, dim=0, streams=None, *, out=None):
    devices = [_dev(d) for d in devices]
    if chunk_sizes is None:
        chunks = tensor.chunk(len(devices), dim)
    else:
        chunks = tensor.split(list(chunk_sizes), dim)
    outs = []
    for i, (d, c) in enumerate(zip(devices, chunks)):
        if streams is not None and streams[i] is not None:
            with torch.cuda.device(d), torch.cuda.stream(streams[i]):
                outs.append(c.to(torch.device("cuda", d)).contiguous())
        else:
            outs.append(c.to(torch.device("cuda", d)).contiguous())
    return tuple(outs)


def gather(tensors, dim=0, destination=None, *, out=None):
    if destination is None:
        destination = torch.cuda.current_device()
    d = _dev(destination)
    dest = torch.device("cpu") if d == -1 else torch.device("cuda", d)
    moved = [t.to(dest) for t in tensors]
    result = torch.cat(moved, dim)
    if out is not None:
        out.copy_(result)
        return out
    return result


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
