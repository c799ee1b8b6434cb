"""torch.cpu.amp: torch.amp's autocast for device_type 'cpu' (docs/amp.md)."""

import torch
from torch.amp import autocast_mode

__all__ = ["autocast"]


class autocast(autocast_mode.autocast):
    def __init__(self, enabled=True, dtype=torch.bfloat16, cache_enabled=True):
        super().__init__("cpu", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)
