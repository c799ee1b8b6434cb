"""torch.autograd: grad mode only. Gradients themselves (backward, grad,
Function) are not modeled yet and say so when used."""

from torch import _unmodeled

from .grad_mode import enable_grad, inference_mode, no_grad, set_grad_enabled  # noqa: F401

__getattr__ = _unmodeled.module_getattr(__name__)
