"""torch._utils: the functions PyTorch's saved files call to rebuild
tensors and parameters (the pickle names them by this module), and the
object-state helpers torch.save uses for tensors with Python attributes."""

import copyreg
from collections import OrderedDict

import torch
from torch import _unmodeled


def _zero_grads(params, set_to_none):
    """Module.zero_grad and Optimizer.zero_grad: each parameter's .grad
    set to None, or detached from any graph and zeroed in place."""
    torch._C._charge_host("zero_grad")
    for p in params:
        if p.grad is not None:
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()


def _element_size(dtype):
    return dtype.itemsize


def _rebuild_tensor(storage, storage_offset, size, stride):
    """A view of a (typed) storage: Tensor.set_(storage, offset, size, stride)."""
    return storage._untyped_storage._view(storage.dtype, size, stride, storage_offset)


def _check_metadata(metadata):
    # PyTorch keeps the conjugate and negative bits of complex views here
    if metadata:
        raise _unmodeled.unsupported("torch.load of a tensor with metadata %r" % (metadata,),
                                     "complex views (conj, neg bits) are not modeled")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    # backward_hooks: PyTorch saves an empty OrderedDict and never hooks
    tensor = _rebuild_tensor(storage, storage_offset, size, stride)
    _check_metadata(metadata)
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype,
                       metadata=None):
    # a storage read as another dtype than its own (PyTorch 2's files)
    tensor = storage._untyped_storage._view(dtype, size, stride, storage_offset)
    _check_metadata(metadata)
    tensor.requires_grad = requires_grad
    return tensor


def _rebuild_parameter(data, requires_grad, backward_hooks):
    return torch.nn.Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    return _set_obj_state(torch.nn.Parameter(data, requires_grad), state)


def _rebuild_device_tensor_from_cpu_tensor(data, dtype, device, requires_grad):
    tensor = data.to(dtype=dtype, device=device)
    tensor.requires_grad = requires_grad
    return tensor


# What PyTorch's files may call that Tensorscope has no tensors for.
_rebuild_qtensor = _unmodeled.stub("torch.load of a quantized tensor", _unmodeled.unsupported)
_rebuild_sparse_tensor = _unmodeled.stub("torch.load of a sparse tensor", _unmodeled.unsupported)
_rebuild_nested_tensor = _unmodeled.stub("torch.load of a nested tensor", _unmodeled.unsupported)
_rebuild_meta_tensor_no_storage = _unmodeled.stub("torch.load of a meta tensor", _unmodeled.unsupported)
_rebuild_wrapper_subclass = _unmodeled.stub("torch.load of a wrapper tensor subclass", _unmodeled.unsupported)
_rebuild_device_tensor_from_numpy = _unmodeled.stub("torch.load of a tensor saved as a NumPy array", _unmodeled.unsupported)
_rebuild_xla_tensor = _unmodeled.stub("torch.load of an XLA tensor", _unmodeled.unsupported)
_rebuild_mps_tensor = _unmodeled.stub("torch.load of an MPS tensor", _unmodeled.unsupported)


def _get_obj_state(obj):
    """A tensor's Python state, as object.__getstate__ would give it:
    its __dict__, with its slots beside it when it has any."""
    getstate = getattr(type(obj), "__getstate__", None)
    if getstate is not None and getstate is not object.__getstate__:
        return obj.__getstate__()
    state = getattr(obj, "__dict__", None) or None
    slots = copyreg._slotnames(type(obj))
    if slots:
        slot_state = {name: getattr(obj, name) for name in slots if hasattr(obj, name)}
        if slot_state:
            return (state, slot_state)
    return state


def _set_obj_state(obj, state):
    if isinstance(state, tuple):
        if len(state) != 2:
            raise RuntimeError("Invalid serialized state: %s" % (state,))
        dict_state, slots_state = state
    else:
        dict_state, slots_state = state, None
    for part in (dict_state, slots_state):
        for key, value in (part or {}).items():
            setattr(obj, key, value)
    return obj


def _hooks_dict():
    # what PyTorch pickles in place of a tensor's backward hooks
    return OrderedDict()


# Flat buffers of several tensors: torch.cuda.comm's coalesced collectives
# (and nn.DataParallel's replicate through them) move one buffer a bucket.

def _flatten_dense_tensors(tensors):
    """One contiguous 1-D tensor of their elements (a view of the only one
    when there is one, as PyTorch's flatten_dense_tensors)."""
    flat = [t.contiguous().view(-1) for t in tensors]
    return flat[0] if len(flat) == 1 else torch.cat(flat, 0)


def _unflatten_dense_tensors(flat, tensors):
    """Views of flat shaped like tensors, in order."""
    outputs = []
    offset = 0
    for t in tensors:
        n = t.numel()
        outputs.append(flat.narrow(0, offset, n).view_as(t))
        offset += n
    return tuple(outputs)


def _take_tensors(tensors, size_limit):
    """Buckets of one type each of at most size_limit bytes (a tensor
    alone may be more), in order (torch/_utils.py's generator)."""
    buckets = {}
    for tensor in tensors:
        key = tensor.type()
        size = tensor.numel() * tensor.element_size()
        buf = buckets.setdefault(key, [[], 0])
        if buf[1] + size > size_limit and buf[1] > 0:
            yield buf[0]
            buf = buckets[key] = [[], 0]
        buf[0].append(tensor)
        buf[1] += size
    for buf, _ in buckets.values():
        if buf:
            yield buf


def _reorder_tensors_as(tensors, ordered_tensors):
    """tensors (grouped by type) in the order of ordered_tensors' types."""
    by_type = {}
    for t in tensors:
        by_type.setdefault(t.type(), []).append(t)
    iters = {k: iter(v) for k, v in by_type.items()}
    return tuple(next(iters[t.type()]) for t in ordered_tensors)
