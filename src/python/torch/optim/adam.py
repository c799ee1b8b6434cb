"""torch.optim.Adam and AdamW, PyTorch 1.13's single-tensor update order,
its fused addcmul_/addcdiv_ kernels included (one rounding where three ops
would round three times). foreach (None: when every parameter is a CUDA
tensor, PyTorch's _default_to_fused_or_foreach) runs 1.13's _multi_tensor_adam
through torch._foreach_* (one launch per chunk of the lists, the loop's values);
fused=True (CUDA only) runs the loop's math as one _fused_adam_ launch per
chunk."""

import math

import torch
import torch._foreach

from .optimizer import Optimizer, _check_not_negative


def _check(lr, eps, betas, weight_decay):
    _check_not_negative(("learning rate", lr), ("epsilon value", eps))
    for i, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError("Invalid beta parameter at index {}: {}".format(i, beta))
    _check_not_negative(("weight_decay value", weight_decay))


class Adam(Optimizer):
    """Its param_groups hold the options PyTorch 1.13's do, in its order."""
    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        Optimizer.__init__(self, params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` cannot be `differentiable`")
            if not all(p.is_cuda and torch.is_floating_point(p)
                       for pg in self.param_groups for p in pg['params']):
                raise RuntimeError("FusedAdam requires all the params to be CUDA, floating point")

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

    def _init_state(self, group, p, state):
        state['step'] = torch.tensor(0.)
        state['exp_avg'] = torch.zeros_like(p)
        state['exp_avg_sq'] = torch.zeros_like(p)
        if group['amsgrad']:
            state['max_exp_avg_sq'] = torch.zeros_like(p)

    def _update_group(self, group, params):
        fused, foreach = group.get('fused', False), group['foreach']
        if fused and foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
        if fused:
            self._fused(group, params)
        else:
            super()._update_group(group, params)

    def _single(self, group, p, state):
        beta1, beta2 = group['betas']
        lr = group['lr']
        weight_decay = group['weight_decay']
        eps = group['eps']
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
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        step = step_t.item()
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = math.sqrt(bias_correction2)
        if group['amsgrad']:
            max_sq = state['max_exp_avg_sq']
            # out=: a copy cannot join a fused launch
            torch.maximum(max_sq, exp_avg_sq, out=max_sq)
            denom = (max_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        else:
            denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
        p.addcdiv_(exp_avg, denom, value=-step_size)

    def _fused(self, group, params):
        # PyTorch's fused kernel does a parameter's whole update in one pass;
        # here the loop's kernels for each parameter join one launch per chunk
        name = '_fused_adamw_' if self._decoupled else '_fused_adam_'
        with torch._foreach._multi_tensor(name, 5 if group['amsgrad'] else 4) as next_tensor:
            for p in params:
                next_tensor(p)
                self._single(group, p, self.state[p])

    def _multi_tensor(self, group, params):
        """PyTorch 1.13's _multi_tensor_adam"""
        beta1, beta2 = group['betas']
        lr, weight_decay, eps = group['lr'], group['weight_decay'], group['eps']
        states = [self.state[p] for p in params]
        grads = [p.grad for p in params]
        exp_avgs = [s['exp_avg'] for s in states]
        exp_avg_sqs = [s['exp_avg_sq'] for s in states]
        state_steps = [s['step'] for s in states]
        if group['maximize']:
            grads = torch._foreach_neg(tuple(grads))
        torch._foreach_add_(state_steps, 1)
        if self._decoupled:
            torch._foreach_mul_(params, 1 - lr * weight_decay)
        elif weight_decay != 0:
            grads = torch._foreach_add(grads, params, alpha=weight_decay)
        torch._foreach_mul_(exp_avgs, beta1)
        torch._foreach_add_(exp_avgs, grads, alpha=1 - beta1)
        torch._foreach_mul_(exp_avg_sqs, beta2)
        torch._foreach_addcmul_(exp_avg_sqs, grads, grads, 1 - beta2)
        steps = [step.item() for step in state_steps]
        bias_correction1 = [1 - beta1 ** step for step in steps]
        bias_correction2 = [1 - beta2 ** step for step in steps]
        step_size = [(lr / bc) * -1 for bc in bias_correction1]
        bias_correction2_sqrt = [math.sqrt(bc) for bc in bias_correction2]
        if group['amsgrad']:
            max_exp_avg_sqs = [s['max_exp_avg_sq'] for s in states]
            torch._foreach_maximum_(max_exp_avg_sqs, exp_avg_sqs)
            sq_sqrt = torch._foreach_sqrt(max_exp_avg_sqs)
        else:
            sq_sqrt = torch._foreach_sqrt(exp_avg_sqs)
        torch._foreach_div_(sq_sqrt, bias_correction2_sqrt)
        denom = torch._foreach_add(sq_sqrt, eps)
        torch._foreach_addcdiv_(params, exp_avgs, denom, step_size)


class AdamW(Adam):
    """1.13's options; fused (PyTorch 2.x's, with its checks) joins the
    param_groups only when asked for"""
    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False, fused=None):
        _check(lr, eps, betas, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        if fused:
            defaults['fused'] = True
        Optimizer.__init__(self, params, defaults)
        if fused:
            devices = ['cuda', 'privateuseone']
            if not all(p.is_cuda and torch.is_floating_point(p)
                       for pg in self.param_groups for p in pg['params']):
                raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of "
                                   "supported devices: {}.".format(devices))
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
