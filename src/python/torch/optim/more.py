"""torch.optim.NAdam, RAdam, Adamax and Adadelta: PyTorch 1.13's
single-tensor updates, op for op (so the values are PyTorch's). Their
multi-tensor forms are not modeled: foreach=True fails by name, and with
the default each parameter updates on its own, on CUDA too (where
PyTorch 2 would launch _foreach_* kernels)."""

import math

import torch
from torch import _unmodeled

from .optimizer import Optimizer


def _check_betas(lr, eps, betas, weight_decay):
    if not 0.0 <= lr:
        raise ValueError("Invalid learning rate: {}".format(lr))
    if not 0.0 <= eps:
        raise ValueError("Invalid epsilon value: {}".format(eps))
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError("Invalid beta parameter at index {}: {}".format(i, betas[i]))
    if not 0.0 <= weight_decay:
        raise ValueError("Invalid weight_decay value: {}".format(weight_decay))


class _SingleTensorOptimizer(Optimizer):
    def _update_group(self, group, params):
        if group.get('foreach'):
            raise _unmodeled.unsupported("torch.optim.{}(foreach=True)".format(type(self).__name__))
        for p in params:
            self._single(group, p, self.state[p])

    @staticmethod
    def _grad(group, p):
        grad = p.grad if not group.get('maximize', False) else -p.grad
        if group['weight_decay'] != 0:
            grad = grad.add(p, alpha=group['weight_decay'])
        return grad

    @staticmethod
    def _zero_state(state, p, *names):
        # the step as a tensor (1.13's state_steps), the buffers as zeros
        state['step'] = torch.tensor(0.)
        for name in names:
            state[name] = torch.zeros_like(p)

    def _begin(self, group, p, state):
        """This step's gradient and the step's number, counted first."""
        state['step'] += 1
        return self._grad(group, p), state['step'].item()


class NAdam(_SingleTensorOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        _check_betas(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError("Invalid momentum_decay value: {}".format(momentum_decay))
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                                      momentum_decay=momentum_decay, foreach=foreach))

    def _init_state(self, group, p, state):
        self._zero_state(state, p, 'exp_avg', 'exp_avg_sq')
        state['mu_product'] = torch.tensor(1.)

    def _single(self, group, p, state):
        beta1, beta2 = group['betas']
        lr, eps, decay = group['lr'], group['eps'], group['momentum_decay']
        grad, step = self._begin(group, p, state)
        bias_correction2 = 1 - beta2 ** step
        mu = beta1 * (1. - 0.5 * (0.96 ** (step * decay)))
        mu_next = beta1 * (1. - 0.5 * (0.96 ** ((step + 1) * decay)))
        mu_product = state['mu_product']
        mu_product *= mu
        mu_product_next = mu_product * mu * mu_next
        state['exp_avg'].mul_(beta1).add_(grad, alpha=1 - beta1)
        state['exp_avg_sq'].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = state['exp_avg_sq'].div(bias_correction2).sqrt().add_(eps)
        p.addcdiv_(grad, denom, value=-lr * (1. - mu) / (1. - mu_product.item()))
        p.addcdiv_(state['exp_avg'], denom, value=-lr * mu_next / (1. - mu_product_next.item()))


class RAdam(_SingleTensorOptimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None):
        _check_betas(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach))

    def _init_state(self, group, p, state):
        self._zero_state(state, p, 'exp_avg', 'exp_avg_sq')

    def _single(self, group, p, state):
        beta1, beta2 = group['betas']
        lr, eps = group['lr'], group['eps']
        grad, step = self._begin(group, p, state)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        exp_avg, exp_avg_sq = state['exp_avg'], state['exp_avg_sq']
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        corrected = exp_avg / bias_correction1
        # the variance's tractability: rectify once rho_t passes 5
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive_lr = math.sqrt(bias_correction2) / exp_avg_sq.sqrt().add_(eps)
            p.add_(corrected * lr * adaptive_lr * rect, alpha=-1.0)
        else:
            p.add_(corrected * lr, alpha=-1.0)


class Adamax(_SingleTensorOptimizer):
    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
        _check_betas(lr, eps, betas, weight_decay)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize))

    def _init_state(self, group, p, state):
        self._zero_state(state, p, 'exp_avg', 'exp_inf')

    def _single(self, group, p, state):
        beta1, beta2 = group['betas']
        lr, eps = group['lr'], group['eps']
        grad, step = self._begin(group, p, state)
        exp_avg, exp_inf = state['exp_avg'], state['exp_inf']
        exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
        # the infinity norm: max(beta2 * u, |g| + eps), through a stacked amax
        norm_buf = torch.cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
        exp_inf.copy_(torch.amax(norm_buf, 0, keepdim=False))
        p.addcdiv_(exp_avg, exp_inf, value=-(lr / (1 - beta1 ** step)))


class Adadelta(_SingleTensorOptimizer):
    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= rho <= 1.0:
            raise ValueError("Invalid rho value: {}".format(rho))
        if not 0.0 <= eps:
            raise ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= weight_decay:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach))

    def _init_state(self, group, p, state):
        state['step'] = 0
        state['square_avg'] = torch.zeros_like(p)
        state['acc_delta'] = torch.zeros_like(p)

    def _single(self, group, p, state):
        lr, rho, eps = group['lr'], group['rho'], group['eps']
        grad = self._grad(group, p)
        state['step'] += 1
        square_avg, acc_delta = state['square_avg'], state['acc_delta']
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        p.add_(delta, alpha=-lr)
