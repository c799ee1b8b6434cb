"""torch.amp: autocast and GradScaler (docs/amp.md)."""

from .autocast_mode import autocast, autocast_policy  # noqa: F401
from .grad_scaler import GradScaler  # noqa: F401
