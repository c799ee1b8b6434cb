"""torch.optim.SGD, PyTorch 1.13's single-tensor and multi-tensor updates."""

import torch

from .optimizer import Optimizer, _decayed_grad, required


class SGD(Optimizer):
    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if momentum < 0.0:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if weight_decay < 0.0:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault('nesterov', False)
            group.setdefault('maximize', False)
            group.setdefault('foreach', None)
            group.setdefault('differentiable', False)

    def _single(self, group, p, state):
        lr = group['lr']
        momentum = group['momentum']
        dampening = group['dampening']
        d_p = _decayed_grad(group, p)
        # as PyTorch: every parameter with a grad gets the entry,
        # None without momentum
        buf = state.get('momentum_buffer')
        if momentum == 0:
            state['momentum_buffer'] = buf
        else:
            if buf is None:
                buf = torch.clone(d_p).detach()
                state['momentum_buffer'] = buf
            else:
                buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
            if group['nesterov']:
                d_p = d_p.add(buf, alpha=momentum)
            else:
                d_p = buf
        p.add_(d_p, alpha=-lr)

    def _multi_tensor(self, group, params):
        """PyTorch 1.13's _multi_tensor_sgd (whose nesterov step adds the
        buffers into the gradients themselves)"""
        lr, momentum, dampening = group['lr'], group['momentum'], group['dampening']
        grads = [p.grad for p in params]
        bufs = [self.state[p].get('momentum_buffer') for p in params]
        if group['maximize']:
            grads = torch._foreach_neg(tuple(grads))
        if group['weight_decay'] != 0:
            grads = torch._foreach_add(grads, params, alpha=group['weight_decay'])
        if momentum != 0:
            if all(b is not None for b in bufs):
                torch._foreach_mul_(bufs, momentum)
                torch._foreach_add_(bufs, grads, alpha=1 - dampening)
            else:
                for i, g in enumerate(grads):
                    if bufs[i] is None:
                        bufs[i] = torch.clone(g).detach()
                    else:
                        bufs[i].mul_(momentum).add_(g, alpha=1 - dampening)
            if group['nesterov']:
                torch._foreach_add_(grads, bufs, alpha=momentum)
            else:
                grads = bufs
        torch._foreach_add_(params, grads, alpha=-lr)
        for p, b in zip(params, bufs):
            self.state[p]['momentum_buffer'] = b
