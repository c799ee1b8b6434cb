"""Weight normalization and spectral normalization as PyTorch's legacy
hooks do them: the module keeps the factors as parameters and buffers,
and a forward pre-hook recomputes the weight from them before each call.
Written from PyTorch's definitions (weight_norm: w = v * g / ||v|| over
every dim but `dim`; spectral_norm: w / sigma with sigma from power
iteration on u, v, updated in place in training mode). PyTorch's
state_dict version hooks of spectral_norm are not modeled: a state dict
saved by PyTorch loads when it has weight_orig, weight_u and weight_v."""

import torch
from torch.nn.parameter import Parameter


def normalize(*args, **kwargs):
    # F.normalize is bound after this module is imported (torch/_ops_more.py)
    return torch.nn.functional.normalize(*args, **kwargs)


def norm_except_dim(v, pow=2, dim=0):
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = (v.size(0),) + (1,) * (v.dim() - 1)
        return v.contiguous().view(v.size(0), -1).norm(pow, dim=1).view(shape)
    if dim == v.dim() - 1:
        shape = (1,) * (v.dim() - 1) + (v.size(-1),)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, dim=0).view(shape)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v, g, dim=0):
    return v * (g / norm_except_dim(v, 2, dim))


def _find_hook(module, kind, name):
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            return key, hook
    return None, None


class WeightNorm:
    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return _weight_norm(getattr(module, self.name + "_v"), getattr(module, self.name + "_g"), self.dim)

    @staticmethod
    def apply(module, name, dim):
        if _find_hook(module, WeightNorm, name)[1] is not None:
            raise RuntimeError("Cannot register two weight_norm hooks on the same parameter {}".format(name))
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    WeightNorm.apply(module, name, dim)
    return module


def _remove(module, kind, what, name):
    key, hook = _find_hook(module, kind, name)
    if hook is None:
        raise ValueError("{} of '{}' not found in {}".format(what, name, module))
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module


def remove_weight_norm(module, name="weight"):
    return _remove(module, WeightNorm, "weight_norm", name)


class SpectralNorm:
    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got n_power_iterations={}"
                             .format(n_power_iterations))
        self.name = name
        self.dim = dim
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        mat = weight
        if self.dim != 0:
            mat = mat.permute(self.dim, *[d for d in range(mat.dim()) if d != self.dim])
        return mat.reshape(mat.size(0), -1)

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            # u and v are updated in place: they are the module's buffers
            with torch.no_grad():
                for _ in range(self.n_power_iterations):
                    v = normalize(torch.mv(mat.t(), u), dim=0, eps=self.eps, out=v)
                    u = normalize(torch.mv(mat, v), dim=0, eps=self.eps, out=u)
                u = u.clone(memory_format=torch.contiguous_format)
                v = v.clone(memory_format=torch.contiguous_format)
        sigma = torch.dot(u, torch.mv(mat, v))
        return weight / sigma

    def remove(self, module):
        with torch.no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        if _find_hook(module, SpectralNorm, name)[1] is not None:
            raise RuntimeError("Cannot register two spectral_norm hooks on the same parameter {}".format(name))
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with torch.no_grad():
            h, w = fn.reshape_weight_to_matrix(weight).size()
            u = normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    if dim is None:
        transposed = (torch.nn.ConvTranspose1d, torch.nn.ConvTranspose2d, torch.nn.ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    return _remove(module, SpectralNorm, "spectral_norm", name)
