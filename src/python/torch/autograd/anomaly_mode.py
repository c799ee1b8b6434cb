"""torch.autograd.detect_anomaly / set_detect_anomaly (PyTorch 1.13's).

The flag lives in the C engine (src/core/autograd/ts-autograd-anomaly.c):
with it on, each node keeps the traceback of its forward (_capture), a
node whose backward fails has it shown as PyTorch's warning (_report), and
with check_nan a NaN in a node's gradients fails the pass with
"Function 'X' returned nan values in its 0th output."."""

import traceback
import warnings

import torch

__all__ = ["detect_anomaly", "set_detect_anomaly"]


def _capture():
    # the script's frames: the last ones are the op's own binding
    return "".join(traceback.format_stack()[:-1])


def _report(name, stack):
    warnings.warn("Error detected in %s. Traceback of forward call that caused the error:\n%s"
                  % (name, stack or ""), UserWarning, stacklevel=3)


class detect_anomaly:
    """Context manager (or decorator) that enables anomaly detection."""

    def __init__(self, check_nan=True):
        self.prev = torch.is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = torch.is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only "
                      "be enabled for debugging.", stacklevel=2)

    def __enter__(self):
        torch.set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        torch.set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False

    def __call__(self, fn):
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Sets anomaly detection on or off now; as a context manager, puts the
    previous setting back on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = torch.is_anomaly_enabled()
        self.prev_check_nan = torch.is_anomaly_check_nan_enabled()
        torch.set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        torch.set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False
