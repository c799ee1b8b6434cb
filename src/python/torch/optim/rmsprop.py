"""torch.optim.RMSprop and Adagrad, PyTorch 1.13's single-tensor and
multi-tensor updates, with its fused addcmul_/addcdiv_ kernels."""

import torch

from .optimizer import Optimizer, _check_not_negative, _decayed_grad


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        _check_not_negative(("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha))
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, group, p, state):
        state['step'] = 0
        state['square_avg'] = torch.zeros_like(p)
        if group['momentum'] > 0:
            state['momentum_buffer'] = torch.zeros_like(p)
        if group['centered']:
            state['grad_avg'] = torch.zeros_like(p)

    def _update_group(self, group, params):
        for p in params:
            self.state[p]['step'] += 1
        super()._update_group(group, params)

    def _single(self, group, p, state):
        lr = group['lr']
        alpha = group['alpha']
        eps = group['eps']
        momentum = group['momentum']
        grad = _decayed_grad(group, p)
        square_avg = state['square_avg']
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if group['centered']:
            grad_avg = state['grad_avg']
            grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add_(eps)
        if momentum > 0:
            buf = state['momentum_buffer']
            buf.mul_(momentum).addcdiv_(grad, avg)
            p.add_(buf, alpha=-lr)
        else:
            p.addcdiv_(grad, avg, value=-lr)

    def _multi_tensor(self, group, params):
        """PyTorch 1.13's _multi_tensor_rmsprop (its weight decay adds into
        the gradients themselves)"""
        lr, alpha, eps, momentum = group['lr'], group['alpha'], group['eps'], group['momentum']
        states = [self.state[p] for p in params]
        grads = [p.grad for p in params]
        square_avgs = [s['square_avg'] for s in states]
        if group['maximize']:
            grads = torch._foreach_neg(grads)
        if group['weight_decay'] != 0:
            torch._foreach_add_(grads, params, alpha=group['weight_decay'])
        torch._foreach_mul_(square_avgs, alpha)
        torch._foreach_addcmul_(square_avgs, grads, grads, value=1 - alpha)
        if group['centered']:
            grad_avgs = [s['grad_avg'] for s in states]
            torch._foreach_mul_(grad_avgs, alpha)
            torch._foreach_add_(grad_avgs, grads, alpha=1 - alpha)
            avg = torch._foreach_addcmul(square_avgs, grad_avgs, grad_avgs, value=-1)
            torch._foreach_sqrt_(avg)
            torch._foreach_add_(avg, eps)
        else:
            avg = torch._foreach_sqrt(square_avgs)
            torch._foreach_add_(avg, eps)
        if momentum > 0:
            bufs = [s['momentum_buffer'] for s in states]
            torch._foreach_mul_(bufs, momentum)
            torch._foreach_addcdiv_(bufs, grads, avg)
            torch._foreach_add_(params, bufs, alpha=-lr)
        else:
            torch._foreach_addcdiv_(params, grads, avg, value=-lr)


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        _check_not_negative(("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value), ("epsilon value", eps))
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group['params']:
                state = self.state[p]
                state['step'] = torch.tensor(0.0)
                state['sum'] = torch.full_like(p, initial_accumulator_value)

    def _single(self, group, p, state):
        lr = group['lr']
        step_t = state['step']
        step_t += 1
        step = step_t.item()
        grad = _decayed_grad(group, p)
        clr = lr / (1 + (step - 1) * group['lr_decay'])
        state_sum = state['sum']
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt().add_(group['eps'])
        p.addcdiv_(grad, std, value=-clr)

    def _multi_tensor(self, group, params):
        """PyTorch 1.13's _multi_tensor_adagrad (its weight decay adds into
        the gradients themselves; the learning rates are float tensors)"""
        lr, lr_decay = group['lr'], group['lr_decay']
        states = [self.state[p] for p in params]
        grads = [p.grad for p in params]
        state_steps = [s['step'] for s in states]
        state_sums = [s['sum'] for s in states]
        if group['maximize']:
            grads = torch._foreach_neg(grads)
        torch._foreach_add_(state_steps, 1)
        if group['weight_decay'] != 0:
            torch._foreach_add_(grads, params, alpha=group['weight_decay'])
        # float tensor arithmetic, as 1.13 computes it from the step tensors
        minus_clr = [(-lr / (1 + (step - 1) * lr_decay)).item() for step in state_steps]
        torch._foreach_addcmul_(state_sums, grads, grads, value=1)
        std = torch._foreach_add(torch._foreach_sqrt(state_sums), group['eps'])
        to_add = torch._foreach_div(torch._foreach_mul(grads, minus_clr), std)
        torch._foreach_add_(params, to_add)
