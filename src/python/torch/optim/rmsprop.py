"""torch.optim.RMSprop and Adagrad, PyTorch 1.13's single-tensor updates.

addcmul_/addcdiv_ are composed as PyTorch's CPU kernels evaluate them:
self + (value * t1) * t2 and self + (value * t1) / t2."""

import torch

from .optimizer import Optimizer, _closure_loss


class RMSprop(Optimizer):
    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= momentum:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= alpha:
            raise ValueError("Invalid alpha value: {}".format(alpha))
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = _closure_loss(closure)
        with torch.no_grad():
            for group in self.param_groups:
                lr = group['lr']
                alpha = group['alpha']
                eps = group['eps']
                weight_decay = group['weight_decay']
                momentum = group['momentum']
                for p in group['params']:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state['step'] = 0
                        state['square_avg'] = torch.zeros_like(p)
                        if momentum > 0:
                            state['momentum_buffer'] = torch.zeros_like(p)
                        if group['centered']:
                            state['grad_avg'] = torch.zeros_like(p)
                    state['step'] += 1
                    grad = p.grad if not group['maximize'] else -p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    square_avg = state['square_avg']
                    # addcmul_(grad, grad, value=1 - alpha)
                    square_avg.mul_(alpha).add_(grad.mul(1 - alpha).mul(grad))
                    if group['centered']:
                        grad_avg = state['grad_avg']
                        grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
                        # square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
                        avg = square_avg.add(grad_avg.neg().mul(grad_avg)).sqrt_()
                    else:
                        avg = square_avg.sqrt()
                    avg = avg.add_(eps)
                    if momentum > 0:
                        buf = state['momentum_buffer']
                        # addcdiv_(grad, avg)
                        buf.mul_(momentum).add_(grad.div(avg))
                        p.add_(buf, alpha=-lr)
                    else:
                        # addcdiv_(grad, avg, value=-lr)
                        p.add_(grad.mul(-lr).div(avg))
        return loss


class Adagrad(Optimizer):
    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= lr_decay:
            raise ValueError("Invalid lr_decay value: {}".format(lr_decay))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= initial_accumulator_value:
            raise ValueError("Invalid initial_accumulator_value value: {}".format(initial_accumulator_value))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group['params']:
                state = self.state[p]
                state['step'] = torch.tensor(0.0)
                state['sum'] = torch.full_like(p, initial_accumulator_value)

    def step(self, closure=None):
        loss = _closure_loss(closure)
        with torch.no_grad():
            for group in self.param_groups:
                lr = group['lr']
                for p in group['params']:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    step_t = state['step']
                    step_t += 1
                    step = step_t.item()
                    grad = p.grad if not group['maximize'] else -p.grad
                    if group['weight_decay'] != 0:
                        grad = grad.add(p, alpha=group['weight_decay'])
                    clr = lr / (1 + (step - 1) * group['lr_decay'])
                    state_sum = state['sum']
                    # addcmul_(grad, grad, value=1)
                    state_sum.add_(grad.mul(grad))
                    std = state_sum.sqrt().add_(group['eps'])
                    # addcdiv_(grad, std, value=-clr)
                    p.add_(grad.mul(-clr).div(std))
        return loss
