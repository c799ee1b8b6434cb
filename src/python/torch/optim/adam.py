"""torch.optim.Adam and AdamW, PyTorch 1.13's single-tensor update order.

Tensorscope has no addcmul_/addcdiv_ yet: they are composed as PyTorch's CPU
kernels evaluate them, self + (value * t1) * t2 and self + (value * t1) / t2,
so the float rounding matches. foreach=True runs the same per-parameter
loop (PyTorch would launch multi-tensor kernels); fused=True says it is not
modeled."""

import math

import torch
from torch import _unmodeled

from .optimizer import Optimizer, _closure_loss


def _check(lr, eps, betas, weight_decay):
    if not 0.0 <= lr:
        raise ValueError("Invalid learning rate: {}".format(lr))
    if not 0.0 <= eps:
        raise ValueError("Invalid epsilon value: {}".format(eps))
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
    if not 0.0 <= weight_decay:
        raise ValueError("Invalid weight_decay value: {}".format(weight_decay))


class Adam(Optimizer):
    """Its param_groups hold the options PyTorch 1.13's do, in its order."""
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check(lr, eps, betas, weight_decay)
        if fused:
            # one kernel for every parameter: not the per-parameter loop modeled here
            raise _unmodeled.unsupported("torch.optim.Adam(..., fused=True)")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        Optimizer.__init__(self, params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault('amsgrad', False)
            group.setdefault('maximize', False)
            group.setdefault('foreach', None)
            group.setdefault('capturable', False)
            if not self._decoupled:
                group.setdefault('differentiable', False)
                group.setdefault('fused', False)
        for s in self.state.values():
            if 'step' in s and not isinstance(s['step'], torch.Tensor):
                s['step'] = torch.tensor(float(s['step']))

    def step(self, closure=None):
        loss = _closure_loss(closure)
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group['betas']
                lr = group['lr']
                weight_decay = group['weight_decay']
                eps = group['eps']
                amsgrad = group['amsgrad']
                for p in group['params']:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state['step'] = torch.tensor(0.)
                        state['exp_avg'] = torch.zeros_like(p)
                        state['exp_avg_sq'] = torch.zeros_like(p)
                        if amsgrad:
                            state['max_exp_avg_sq'] = torch.zeros_like(p)
                    grad = p.grad if not group['maximize'] else -p.grad
                    exp_avg = state['exp_avg']
                    exp_avg_sq = state['exp_avg_sq']
                    step_t = state['step']
                    step_t += 1
                    if self._decoupled:
                        p.mul_(1 - lr * weight_decay)
                    elif weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    # addcmul_(grad, grad, value=1 - beta2)
                    exp_avg_sq.mul_(beta2).add_(grad.mul(1 - beta2).mul(grad))
                    step = step_t.item()
                    bias_correction1 = 1 - beta1 ** step
                    bias_correction2 = 1 - beta2 ** step
                    step_size = lr / bias_correction1
                    bias_correction2_sqrt = math.sqrt(bias_correction2)
                    if amsgrad:
                        max_sq = state['max_exp_avg_sq']
                        max_sq.copy_(torch.maximum(max_sq, exp_avg_sq))
                        denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                    else:
                        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
                    # addcdiv_(exp_avg, denom, value=-step_size)
                    p.add_(exp_avg.mul(-step_size).div(denom))
        return loss


class AdamW(Adam):
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _check(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        Optimizer.__init__(self, params, defaults)
