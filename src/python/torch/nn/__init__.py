"""torch.nn: the parts of PyTorch's Python layer that workloads use."""

from torch import _unmodeled

from . import functional, init, parallel  # noqa: F401
from .modules import (ELU, GELU, BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, Dropout,  # noqa: F401
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
from .parallel import DataParallel  # noqa: F401
from .parameter import Parameter  # noqa: F401

# what PyTorch has here and Tensorscope does not model says so by name
__getattr__ = _unmodeled.module_getattr(__name__)
