"""torch.optim.Optimizer: PyTorch's base class, over Tensorscope's tensor ops.

Updates run under torch.no_grad(), one parameter at a time (PyTorch's
foreach=False path: one kernel sequence per parameter), or as 1.13's
_multi_tensor_* functions through torch._foreach_* (foreach=True, and the
default when every parameter is a CUDA tensor: one launch per chunk of the
lists). zero_grad() defaults to set_to_none=True as in PyTorch 2.x
(1.13 defaulted to False)."""

from collections import defaultdict
from collections import abc as _abc
from copy import deepcopy
from itertools import chain

import torch


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    # as torch.typename: a tensor's type() ("torch.FloatTensor"), else the
    # object's module and qualified name
    if isinstance(obj, torch.Tensor):
        return obj.type()
    module = getattr(obj, '__module__', '') or ''
    qualname = getattr(obj, '__qualname__', None) or getattr(obj, '__name__', None) or type(obj).__qualname__
    return module + '.' + qualname if module else qualname


class Optimizer:
    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, torch.Tensor):
            raise TypeError("params argument given to the optimizer should be "
                            "an iterable of Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{'params': param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {'defaults': self.defaults, 'state': self.state, 'param_groups': self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        s = self.__class__.__name__ + ' ('
        for i, group in enumerate(self.param_groups):
            s += '\n'
            s += 'Parameter Group {0}\n'.format(i)
            for key in sorted(group.keys()):
                if key != 'params':
                    s += '    {0}: {1}\n'.format(key, group[key])
        s += ')'
        return s

    def state_dict(self):
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != 'params'}
            param_mappings.update({id(p): i for i, p in enumerate(group['params'], start_index)
                                   if id(p) not in param_mappings})
            packed['params'] = [param_mappings[id(p)] for p in group['params']]
            start_index += len(packed['params'])
            return packed
        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, torch.Tensor) else k): v
                        for k, v in self.state.items()}
        return {'state': packed_state, 'param_groups': param_groups}

    def load_state_dict(self, state_dict):
        state_dict = deepcopy(state_dict)
        groups = self.param_groups
        saved_groups = state_dict['param_groups']
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g['params']) != len(s['params']) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group "
                             "that doesn't match the size of optimizer's group")
        id_map = {old_id: p for old_id, p in
                  zip(chain.from_iterable(g['params'] for g in saved_groups),
                      chain.from_iterable(g['params'] for g in groups))}

        def cast(param, value, key=None):
            if isinstance(value, torch.Tensor):
                if key != "step":
                    if torch.is_floating_point(param):
                        value = value.to(param.dtype)
                    value = value.to(param.device)
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (str, bytes)):
                return value
            if isinstance(value, _abc.Iterable):
                return type(value)(cast(param, v) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict['state'].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group['params'] = group['params']
            return new_group
        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({'state': state, 'param_groups': param_groups})

    def zero_grad(self, set_to_none=True):
        torch._utils._zero_grads(chain.from_iterable(g['params'] for g in self.param_groups), set_to_none)

    def step(self, closure=None):
        """The frame every optimizer here shares: the closure's loss under
        enable_grad, then under no_grad each group's parameters that have a
        grad, their state made on first use, handed to _update_group."""
        loss = _closure_loss(closure)
        with torch.no_grad():
            for group in self.param_groups:
                params = [p for p in group['params'] if p.grad is not None]
                # the host time of PyTorch's step wrappers and _init_group
                torch._C._charge_host("optimizer_step")
                torch._C._charge_host("optimizer_param", len(params))
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        self._init_state(group, p, state)
                self._update_group(group, params)
        return loss

    def _init_state(self, group, p, state):
        """A parameter's optimizer state on its first step (none by default)."""

    def _update_group(self, group, params):
        """The multi-tensor update where _use_foreach picks it, else each
        parameter's on its own (an optimizer's _multi_tensor and _single)."""
        if _use_foreach(group['foreach'], params, group.get('differentiable', False)):
            self._multi_tensor(group, params)
        else:
            for p in params:
                self._single(group, p, self.state[p])

    def add_param_group(self, param_group):
        assert isinstance(param_group, dict), "param group must be a dict"
        params = param_group['params']
        if isinstance(params, torch.Tensor):
            param_group['params'] = [params]
        elif isinstance(params, set):
            raise TypeError('optimizer parameters need to be organized in ordered collections, but '
                            'the ordering of tensors in sets will change between runs. Please use a list instead.')
        else:
            param_group['params'] = list(params)
        for param in param_group['params']:
            if not isinstance(param, torch.Tensor):
                raise TypeError("optimizer can only optimize Tensors, "
                                "but one of the params is " + _typename(param))
            if not param.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter " +
                                 name)
            else:
                param_group.setdefault(name, default)
        params = param_group['params']
        if len(params) != len(set(params)):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; ", stacklevel=3)
        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group['params']))
        if not param_set.isdisjoint(set(param_group['params'])):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)


def _check_not_negative(*checks):
    """PyTorch's constructor checks, in its order: a ValueError "Invalid
    <what>: <value>" for the first (what, value) not >= 0 (NaN included)."""
    for what, value in checks:
        if not 0.0 <= value:
            raise ValueError("Invalid {}: {}".format(what, value))


def _closure_loss(closure):
    if closure is None:
        return None
    with torch.enable_grad():
        return closure()


def _use_foreach(foreach, params, differentiable=False):
    """PyTorch's _default_to_fused_or_foreach: None means the multi-tensor
    path when every parameter is a CUDA tensor and nothing is differentiable."""
    if foreach is not None:
        return bool(foreach) and len(params) > 0
    return not differentiable and len(params) > 0 and all(p.is_cuda for p in params)


def _decayed_grad(group, p):
    """The single-tensor paths' gradient: negated to maximize, plus the L2
    weight decay"""
    grad = p.grad if not group['maximize'] else -p.grad
    if group['weight_decay'] != 0:
        grad = grad.add(p, alpha=group['weight_decay'])
    return grad
