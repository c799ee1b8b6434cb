"""nn.Module and the few layers workloads use (torch/nn/modules upstream)."""

import math
from collections import OrderedDict

import torch
from torch import _unmodeled
from . import functional as F
from . import init
from .parameter import Parameter


# nn.Module's public methods in PyTorch (1.13's dir() and 2's additions):
# the ones Module lacks are not modeled, any other name is the script's own.
_PYTORCH_MODULE_METHODS = frozenset("""
    add_module apply bfloat16 buffers children compile cpu cuda double eval extra_repr float forward
    get_buffer get_extra_state get_parameter get_submodule half ipu load_state_dict modules mtia
    named_buffers named_children named_modules named_parameters parameters register_backward_hook
    register_buffer register_forward_hook register_forward_pre_hook register_full_backward_hook
    register_full_backward_pre_hook register_load_state_dict_post_hook
    register_load_state_dict_pre_hook register_module register_parameter register_state_dict_post_hook
    register_state_dict_pre_hook requires_grad_ set_extra_state set_submodule share_memory state_dict
    to to_empty train type xpu zero_grad""".split())


class Module:
    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())

    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            params[name] = value
            self.__dict__.pop(name, None)
        elif isinstance(value, Module):
            if self.__dict__.get("_modules") is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._modules[name] = value
            self.__dict__.pop(name, None)
        elif params is not None and name in params:
            params[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        if name in _PYTORCH_MODULE_METHODS:
            raise _unmodeled.not_modeled("torch.nn.Module." + name)
        raise AttributeError("'{}' object has no attribute '{}'".format(type(self).__name__, name))

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, {}):
                del self.__dict__[store][name]
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        self._buffers[name] = tensor

    def add_module(self, name, module):
        self._modules[name] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError('Module [{}] is missing the required "forward" function'
                                  .format(type(self).__name__))

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        for mprefix, module in (self.named_modules(prefix=prefix) if recurse else [(prefix, self)]):
            for name, p in module._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (mprefix + "." if mprefix else "") + name, p

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def buffers(self, recurse=True):
        for _, m in self.named_modules():
            for b in m._buffers.values():
                if b is not None:
                    yield b

    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix=""):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def _apply(self, fn):
        for m in self.children():
            m._apply(fn)
        for name, p in self._parameters.items():
            if p is not None:
                # as PyTorch: the move is no op of the graph
                with torch.no_grad():
                    moved = fn(p)
                if moved is not p:
                    torch._C._set_data(p, moved)
        for name, b in self._buffers.items():
            if b is not None:
                self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        device = kwargs.get("device")
        dtype = kwargs.get("dtype")
        non_blocking = kwargs.get("non_blocking", False)
        for a in args:
            if isinstance(a, torch.dtype):
                dtype = a
            elif isinstance(a, (str, torch.device, int)) and not isinstance(a, bool):
                device = a
            elif isinstance(a, torch.Tensor):
                device, dtype = a.device, a.dtype

        def convert(t):
            dt = dtype if (dtype is not None and t.dtype.is_floating_point) else None
            return t.to(device=device, dtype=dt, non_blocking=non_blocking)
        return self._apply(convert)

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def float(self):
        return self._apply(lambda t: t.float() if t.dtype.is_floating_point else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.dtype.is_floating_point else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.dtype.is_floating_point else t)

    def train(self, mode=True):
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad = requires_grad
        return self

    def zero_grad(self, set_to_none=True):
        pass

    def state_dict(self, destination=None, prefix=""):
        out = OrderedDict() if destination is None else destination
        for name, p in self.named_parameters():
            out[prefix + name] = p.data
        return out

    def load_state_dict(self, state_dict, strict=True):
        params = dict(self.named_parameters())
        for k, v in state_dict.items():
            if k in params:
                params[k].copy_(v)

    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = repr(module).replace("\n", "\n  ")
            child_lines.append("(" + key + "): " + mod_str)
        lines = lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra.split("\n")) == 1 and not child_lines:
                main += extra
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __dir__(self):
        return list(object.__dir__(self)) + list(self._parameters) + list(self._modules)


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(torch.empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return "in_features={}, out_features={}, bias={}".format(
            self.in_features, self.out_features, self.bias is not None)


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < self.num_embeddings, "Padding_idx must be within num_embeddings"
            elif padding_idx < 0:
                assert padding_idx >= -self.num_embeddings, "Padding_idx must be within num_embeddings"
                padding_idx = self.num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(torch.empty((num_embeddings, embedding_dim), device=device, dtype=dtype),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                "Shape of weight does not match num_embeddings and embedding_dim"
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = "{num_embeddings}, {embedding_dim}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s.format(**self.__dict__)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()

    def forward(self, x):
        return x.relu()


class Tanh(Module):
    def forward(self, x):
        return x.tanh()


class Sigmoid(Module):
    def forward(self, x):
        return x.sigmoid()


class _SoftmaxFamily(Module):
    """Softmax and LogSoftmax: siblings, as in PyTorch."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return self._function(x, self.dim, _stacklevel=5)

    def extra_repr(self):
        return "dim={dim}".format(dim=self.dim)


class Softmax(_SoftmaxFamily):
    _function = staticmethod(F.softmax)


class LogSoftmax(_SoftmaxFamily):
    _function = staticmethod(F.log_softmax)


class Identity(Module):
    def forward(self, x):
        return x


class Sequential(Module):
    def __init__(self, *mods):
        super().__init__()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def forward(self, x):
        for m in self._modules.values():
            x = m(x)
        return x

    def __getitem__(self, i):
        return list(self._modules.values())[i]

    def __len__(self):
        return len(self._modules)


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
