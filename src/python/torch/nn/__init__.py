"""torch.nn: the parts of PyTorch's Python layer that workloads use."""

from torch import _unmodeled

from . import functional, init, parallel  # noqa: F401
from .modules import (ELU, GELU, AlphaDropout, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, Dropout,  # noqa: F401
                      Dropout1d, Dropout2d, Dropout3d, FeatureAlphaDropout,
                      Embedding, Flatten, HuberLoss, Identity, KLDivLoss, L1Loss, LayerNorm, LeakyReLU,
                      Linear, LogSoftmax, Module, ModuleDict, ModuleList, MSELoss, NLLLoss, ParameterDict,
                      ParameterList, ReLU, Sequential, Sigmoid, SiLU, SmoothL1Loss, Softmax, Softplus, Tanh,
                      Unflatten)
from ._attention import MultiheadAttention  # noqa: F401
from ._transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: F401
                           TransformerEncoder, TransformerEncoderLayer)
from ._rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell, RNNCellBase  # noqa: F401
from ._conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, Fold,  # noqa: F401
                    Unfold)
from ._pooling import (AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,  # noqa: F401
                       AdaptiveMaxPool2d, AdaptiveMaxPool3d, AvgPool1d, AvgPool2d, AvgPool3d, LPPool1d,
                       LPPool2d, MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d)
from ._normalization import (BatchNorm1d, BatchNorm2d, BatchNorm3d, GroupNorm, InstanceNorm1d,  # noqa: F401
                             InstanceNorm2d, InstanceNorm3d, LocalResponseNorm, RMSNorm)
from ._padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, PixelShuffle, PixelUnshuffle,  # noqa: F401
                       ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                       ReplicationPad3d, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d, ZeroPad2d)
from ._activation_more import (CELU, GLU, SELU, Hardshrink, Hardsigmoid, Hardswish, Hardtanh,  # noqa: F401
                               LogSigmoid, Mish, PReLU, ReLU6, Softmax2d, Softmin, Softshrink, Softsign,
                               Tanhshrink, Threshold)
from . import _torch_functions  # noqa: F401,E402  (torch.max_pool2d, torch.batch_norm, ...)
from . import _losses_more  # noqa: E402
_losses_more._install()
from .parallel import DataParallel  # noqa: F401
from .parameter import Parameter  # noqa: F401

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
