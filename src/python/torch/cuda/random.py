"""torch.cuda's RNG functions: one Philox generator per device."""

import torch
from torch import _C, _unmodeled

__all__ = ["manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed",
           "get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all"]


def _idx(device):
    from . import _get_device_index
    if isinstance(device, str) and device == "cuda":
        return _C._cuda_current_device()
    return _get_device_index(device, optional=True)


def _n():
    return _C._cuda_device_count()


def manual_seed(seed):
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    if _n() == 0:
        return
    _C._rng_manual_seed(_C._cuda_current_device() if _C._cuda_is_initialized() else 0, seed)


def manual_seed_all(seed):
    seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    for i in range(_n()):
        _C._rng_manual_seed(i, seed)


def seed():
    _C._rng_seed(_C._cuda_current_device())


def seed_all():
    s = _C._rng_seed(0)
    for i in range(1, _n()):
        _C._rng_manual_seed(i, s)


def initial_seed():
    return _C._rng_initial_seed(_C._cuda_current_device())


def get_rng_state(device="cuda"):
    state = _C._rng_get_state(_idx(device))
    return torch.tensor(list(state), dtype=torch.uint8)


def get_rng_state_all():
    return [get_rng_state(i) for i in range(_n())]


def set_rng_state(new_state, device="cuda"):
    if (not isinstance(new_state, torch.Tensor) or new_state.dtype != torch.uint8
            or new_state.device.type != "cpu"):
        raise TypeError("RNG state must be a torch.ByteTensor")
    _C._rng_set_state(_idx(device), bytes(new_state.tolist()))


def set_rng_state_all(new_states):
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
