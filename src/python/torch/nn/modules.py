"""nn.Module and the few layers workloads use (torch/nn/modules upstream)."""

import itertools
import math
import operator
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


_hook_ids = itertools.count()


def _typename(obj):
    """torch.typename: a tensor's type(), else the qualified class name."""
    if isinstance(obj, torch.Tensor):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins") else module + "." + cls.__qualname__


class _IncompatibleKeys:
    """PyTorch's namedtuple (missing_keys, unexpected_keys) and its repr."""

    def __init__(self, missing_keys, unexpected_keys):
        self.missing_keys = missing_keys
        self.unexpected_keys = unexpected_keys

    def __iter__(self):
        return iter((self.missing_keys, self.unexpected_keys))

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return "_IncompatibleKeys(missing_keys={!r}, unexpected_keys={!r})".format(
            self.missing_keys, self.unexpected_keys)

    __str__ = __repr__


class Module:
    _version = 1

    def __init__(self, *args, **kwargs):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_forward_hooks", OrderedDict())

    def __setattr__(self, name, value):
        def remove_from(*stores):
            for d in stores:
                if d is not None and name in d:
                    if d is self.__dict__:
                        del d[name]
                    else:
                        d.pop(name)
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self.__dict__.get("_buffers"), self.__dict__.get("_modules"))
            self._non_persistent_buffers_set.discard(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '{}' as parameter '{}' (torch.nn.Parameter or None expected)"
                                .format(_typename(value), name))
            params[name] = value
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, params, self.__dict__.get("_buffers"))
                self._non_persistent_buffers_set.discard(name)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError("cannot assign '{}' as child module '{}' (torch.nn.Module or None expected)"
                                    .format(_typename(value), name))
                modules[name] = value
            elif self.__dict__.get("_buffers") is not None and name in self._buffers:
                if value is not None and not isinstance(value, torch.Tensor):
                    raise TypeError("cannot assign '{}' as buffer '{}' (torch.Tensor or None expected)"
                                    .format(_typename(value), name))
                self._buffers[name] = value
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
                self.__dict__.get("_non_persistent_buffers_set", set()).discard(name)
                return
        object.__delattr__(self, name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError("cannot assign '{}' object to parameter '{}' (torch.nn.Parameter or None required)"
                            .format(_typename(param), name))
        self._parameters[name] = param

    def register_module(self, name, module):
        self.add_module(name, module)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return p

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return mod._buffers[name]

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError("buffer name should be a string. Got {}".format(_typename(name)))
        if "." in name:
            raise KeyError("buffer name can't contain \".\"")
        if name == "":
            raise KeyError("buffer name can't be empty string \"\"")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '{}' already exists".format(name))
        if tensor is not None and not isinstance(tensor, torch.Tensor):
            raise TypeError("cannot assign '{}' object to buffer '{}' (torch Tensor or None required)"
                            .format(_typename(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError("{} is not a Module subclass".format(_typename(module)))
        if not isinstance(name, str):
            raise TypeError("module name should be a string. Got {}".format(_typename(name)))
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '{}' already exists".format(name))
        if "." in name:
            raise KeyError("module name can't contain \".\", got: {}".format(name))
        if name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError('Module [{}] is missing the required "forward" function'
                                  .format(type(self).__name__))

    def _add_hook(self, store, hook):
        from torch.utils.hooks import RemovableHandle
        hooks = self.__dict__.setdefault(store, OrderedDict())
        key = next(_hook_ids)
        hooks[key] = hook
        handle = RemovableHandle(lambda: hooks.pop(key, None))
        handle.id = key
        return handle

    def register_forward_pre_hook(self, hook):
        return self._add_hook("_forward_pre_hooks", hook)

    def register_forward_hook(self, hook):
        return self._add_hook("_forward_hooks", hook)

    def register_full_backward_hook(self, hook):
        return self._add_hook("_backward_hooks", hook)

    def register_full_backward_pre_hook(self, hook):
        return self._add_hook("_backward_pre_hooks", hook)

    def __call__(self, *args, **kwargs):
        # Module._call_impl: pre-hooks may replace the inputs, hooks the output;
        # backward hooks see the gradients through identity nodes around it
        # the host time of PyTorch's _call_impl and the forward body's Python
        torch._C._charge_host("module_call")
        d = self.__dict__
        # no hooks (a training step's usual case): forward alone
        if not (d.get("_forward_pre_hooks") or d.get("_forward_hooks") or
                d.get("_backward_hooks") or d.get("_backward_pre_hooks")):
            return self.forward(*args, **kwargs)
        for hook in list(self.__dict__.get("_forward_pre_hooks", {}).values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        bw_hook = None
        if self.__dict__.get("_backward_hooks") or self.__dict__.get("_backward_pre_hooks"):
            from torch.utils.hooks import BackwardHook
            bw_hook = BackwardHook(self, list(self.__dict__.get("_backward_hooks", {}).values()),
                                   list(self.__dict__.get("_backward_pre_hooks", {}).values()))
            args = bw_hook.setup_input_hook(args)
        out = self.forward(*args, **kwargs)
        for hook in list(self.__dict__.get("_forward_hooks", {}).values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        return bw_hook.setup_output_hook(out) if bw_hook is not None else out

    def _named_members(self, get_members, prefix, recurse):
        """PyTorch's helper of the same name: each module's members (its
        parameters or its buffers) with their dotted names, a tensor that
        two modules share given once."""
        seen = set()
        for mprefix, module in (self.named_modules(prefix=prefix) if recurse else [(prefix, self)]):
            for name, v in get_members(module):
                if v is None or id(v) in seen:
                    continue
                seen.add(id(v))
                yield (mprefix + "." if mprefix else "") + name, v

    def named_parameters(self, prefix="", recurse=True):
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self):
        for name, m in self._modules.items():
            if m is not None:
                yield name, m

    def children(self):
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

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
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
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

    def zero_grad(self, set_to_none=False):
        # PyTorch 1.13's default: zero in place (2.0 sets to None)
        torch._utils._zero_grads(self.parameters(), set_to_none)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        # each module's version, by prefix: torch.save writes it and
        # load_state_dict hands it to _load_from_state_dict, as in PyTorch
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = dict(version=self._version)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def compile(self, *args, **kwargs):
        # PyTorch compiles the module's call in place; it runs eagerly here
        torch.compile(self, *args, **kwargs)

    def _load_from_state_dict(self, state_dict, prefix, strict, missing_keys, unexpected_keys, error_msgs):
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local = {k: v for k, v in list(self._parameters.items()) + list(persistent.items()) if v is not None}
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, torch.Tensor):
                error_msgs.append('While copying the parameter named "{}", expected torch.Tensor or Tensor-like '
                                  'object from checkpoint but received {}'.format(key, type(input_param)))
                continue
            if tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append("size mismatch for {}: copying a param with shape {} from checkpoint, "
                                  "the shape in current model is {}.".format(key, input_param.shape, param.shape))
                continue
            try:
                with torch.no_grad():
                    param.copy_(input_param)
            except Exception as ex:
                error_msgs.append('While copying the parameter named "{}", whose dimensions in the model are {} '
                                  'and whose dimensions in the checkpoint are {}, an exception occurred : {}.'
                                  .format(key, param.size(), input_param.size(), ex.args))
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)[0]
                    if input_name not in self._modules and input_name not in local:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        if not isinstance(state_dict, dict):
            raise TypeError("Expected state_dict to be dict-like, got {}.".format(type(state_dict)))
        missing_keys, unexpected_keys, error_msgs = [], [], []

        def load(module, prefix=""):
            module._load_from_state_dict(state_dict, prefix, True, missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")
        load(self)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join('"{}"'.format(k) for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join('"{}"'.format(k) for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

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
        return list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)


class Linear(Module):
    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(torch.empty((out_features, in_features), device=device, dtype=dtype))
        _optional_parameters(self, bias, out_features, device, dtype, ("bias",))
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

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        assert embeddings.dim() == 2, "Embeddings parameter is expected to be 2-dimensional"
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)

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


class _InplaceActivation(Module):
    """An activation module over F.<name>(x, inplace=...), as ReLU and SiLU are."""
    _function = None

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, x):
        return type(self)._function(x, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU(_InplaceActivation):
    _function = staticmethod(F.relu)


class Tanh(Module):
    def forward(self, x):
        return x.tanh()


class Sigmoid(Module):
    def forward(self, x):
        return x.sigmoid()


class SiLU(_InplaceActivation):
    _function = staticmethod(F.silu)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x):
        return F.gelu(x, approximate=self.approximate)

    def extra_repr(self):
        return "approximate={}".format(repr(self.approximate))


class _ParamActivation(_InplaceActivation):
    """An activation with one parameter besides inplace, over
    F.<name>(x, value, inplace): LeakyReLU, ELU, CELU."""
    _param = None

    def __init__(self, value, inplace=False):
        super().__init__(inplace)
        setattr(self, self._param, value)

    def forward(self, x):
        return type(self)._function(x, getattr(self, self._param), self.inplace)

    def extra_repr(self):
        return "{}={}{}".format(self._param, getattr(self, self._param), ", inplace=True" if self.inplace else "")


class LeakyReLU(_ParamActivation):
    _function = staticmethod(F.leaky_relu)
    _param = "negative_slope"

    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__(negative_slope, inplace)


def _elu(x, alpha, inplace):
    # F.elu comes from _activation_more, imported by F after this module
    return F.elu(x, alpha, inplace)


class ELU(_ParamActivation):
    _function = staticmethod(_elu)
    _param = "alpha"

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha, inplace)


class Softplus(Module):
    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x):
        return F.softplus(x, self.beta, self.threshold)

    def extra_repr(self):
        return "beta={}, threshold={}".format(self.beta, self.threshold)


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        return "p={}, inplace={}".format(self.p, self.inplace)


class Dropout(_DropoutNd):
    def forward(self, x):
        return F.dropout(x, self.p, self.training, self.inplace)


class Dropout1d(_DropoutNd):
    def forward(self, x):
        return F.dropout1d(x, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    def forward(self, x):
        return F.dropout2d(x, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    def forward(self, x):
        return F.dropout3d(x, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    def forward(self, x):
        return F.alpha_dropout(x, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    def forward(self, x):
        return F.feature_alpha_dropout(x, self.p, self.training)


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, x):
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self):
        return "start_dim={}, end_dim={}".format(self.start_dim, self.end_dim)


class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, x):
        dim = self.dim if self.dim >= 0 else x.dim() + self.dim
        shape = list(x.shape[:dim]) + list(self.unflattened_size) + list(x.shape[dim + 1:])
        return x.reshape(shape)

    def extra_repr(self):
        return "dim={}, unflattened_size={}".format(self.dim, self.unflattened_size)


def _optional_parameters(module, present, shape, device, dtype, names=("weight", "bias")):
    """Parameters of @shape that a flag turns on: a normalization layer's
    affine weight and bias, a Linear's or a convolution's bias. Left
    uninitialised for reset_parameters; when not @present, None in their
    places, still registered, as in PyTorch's state_dict."""
    for name in names:
        if present:
            setattr(module, name, Parameter(torch.empty(shape, device=device, dtype=dtype)))
        else:
            module.register_parameter(name, None)


def _reset_affine(module, affine):
    """The affine transform's start: weight ones, bias (if any) zeros."""
    if affine:
        init.ones_(module.weight)
        if getattr(module, "bias", None) is not None:
            init.zeros_(module.bias)


class _LastDimsNorm(Module):
    """LayerNorm and RMSNorm: a norm over the last dims, normalized_shape,
    with an elementwise weight (and LayerNorm's bias) when affine."""
    _affine_names = ("weight", "bias")

    def __init__(self, normalized_shape, eps, elementwise_affine, device, dtype):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _optional_parameters(self, elementwise_affine, self.normalized_shape, device, dtype, self._affine_names)
        self.reset_parameters()

    def reset_parameters(self):
        _reset_affine(self, self.elementwise_affine)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


class LayerNorm(_LastDimsNorm):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        super().__init__(normalized_shape, eps, elementwise_affine, device, dtype)

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


# -- Losses ------------------------------------------------------------------

class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = F._legacy_reduction(size_average, reduce, reduction)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.weight = weight


class MSELoss(_Loss):
    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)
        self.weight = weight
        self.pos_weight = pos_weight

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class KLDivLoss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


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


def _index(idx, n, kind):
    idx = operator.index(idx)
    if not (-n <= idx < n):
        raise IndexError("index {} is out of range".format(idx))
    return idx % n if n else idx


class _ModuleSequence(Module):
    """What Sequential and ModuleList share: children kept in order under
    the names "0", "1", ..., renumbered after a deletion (as PyTorch 2)."""

    def _renumber(self):
        items = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self


class Sequential(_ModuleSequence):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for i, m in enumerate(args):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[_index(idx, len(self), "Sequential")]
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules.keys())[_index(idx, len(self), "Sequential")])
        self._renumber()


class ModuleList(_ModuleSequence):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self += modules

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx, module):
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                del self._modules[str(k)]
        else:
            del self._modules[str(_index(idx, len(self), "ModuleList"))]
        self._renumber()

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        out = ModuleList()
        for m in list(self) + list(other):
            out.append(m)
        return out

    def insert(self, index, module):
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module

    def extend(self, modules):
        offset = len(self)
        for i, m in enumerate(modules):
            self.add_module(str(offset + i), m)
        return self

    def forward(self, *args, **kwargs):
        raise NotImplementedError('Module [ModuleList] is missing the required "forward" function')


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        if isinstance(modules, (OrderedDict, ModuleDict, dict)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(modules):
                if len(m) != 2:
                    raise ValueError("ModuleDict update sequence element #{} has length {}; 2 is required"
                                     .format(j, len(m)))
                self[m[0]] = m[1]


def _param_repr(p, type_str):
    # ParameterList prints the dtype, ParameterDict the tensor type (1.13)
    size_str = "x".join(str(size) for size in p.size())
    device_str = " (GPU {})".format(p.get_device()) if p.is_cuda else ""
    return "{} containing: [{} of size {}{}]".format(
        "Parameter" if isinstance(p, Parameter) else "Tensor", type_str, size_str, device_str)


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        object.__setattr__(self, "_size", 0)
        if values is not None:
            self += values

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self)[idx])
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx, param):
        idx = _index(idx, len(self), "ParameterList")
        if isinstance(param, torch.Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(idx), param)

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        new_idx = len(self)
        object.__setattr__(self, "_size", new_idx + 1)
        if isinstance(value, torch.Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, str(new_idx), value)
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, torch.Tensor):
                lines.append("  (" + str(k) + "): " + _param_repr(p, p.dtype))
            else:
                lines.append("  (" + str(k) + "): Object of type: " + type(p).__name__)
        return "\n".join(lines)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        object.__setattr__(self, "_keys", OrderedDict())
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        if isinstance(value, torch.Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def get(self, key, default=None):
        return self[key] if key in self else default

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        if isinstance(parameters, dict) and not isinstance(parameters, OrderedDict):
            items = sorted(items)
        for k, v in items:
            self[k] = v

    def extra_repr(self):
        lines = []
        for k, p in self.items():
            if isinstance(p, torch.Tensor):
                lines.append("  (" + k + "): " + _param_repr(p, _typename(p)))
            else:
                lines.append("  (" + k + "): Object of type: " + type(p).__name__)
        return "\n".join(lines)

    def __call__(self, input):
        raise RuntimeError("ParameterDict should not be called.")


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
