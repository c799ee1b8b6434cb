"""nn.Transformer and its encoder/decoder stacks and layers, PyTorch 1.13's
torch/nn/modules/transformer.py over MultiheadAttention, Linear, LayerNorm
and Dropout: the same submodules in the same order, so a seed gives
PyTorch's parameters. The eval-mode fast paths (_transformer_encoder_layer_fwd,
nested tensors) are not taken: their values are the math path's, except
that TransformerEncoder's nested-tensor path gives zeros at padded
positions, which _pads_to_zero reproduces."""

import copy

import torch
from . import functional as F
from . import init
from ._attention import MultiheadAttention
from .modules import Dropout, GELU, LayerNorm, Linear, Module, ModuleList, ReLU


def _get_clones(module, N):
    return ModuleList([copy.deepcopy(module) for _ in range(N)])


def _get_activation_fn(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError("activation should be relu/gelu, not {}".format(activation))


def _check_padding_mask(mask):
    if mask is not None and mask.dtype != torch.bool and not mask.dtype.is_floating_point:
        raise AssertionError("only bool and floating types of key_padding_mask are supported")


class _LayerBase(Module):
    """What both layers share: self-attention, the feed-forward block and
    their norms and dropouts, registered in PyTorch's order."""

    def _feed_forward(self, d_model, dim_feedforward, dropout, factory):
        self.linear1 = Linear(d_model, dim_feedforward, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, **factory)

    def _norms_and_dropouts(self, n, d_model, layer_norm_eps, dropout, factory):
        """norm1 to norm<n>, then dropout1 to dropout<n>: one of each per
        sub-block, registered in PyTorch's order."""
        for i in range(1, n + 1):
            setattr(self, "norm%d" % i, LayerNorm(d_model, eps=layer_norm_eps, **factory))
        for i in range(1, n + 1):
            setattr(self, "dropout%d" % i, Dropout(dropout))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x, last_dropout):
        return last_dropout(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoderLayer(_LayerBase):
    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, **factory)
        self._feed_forward(d_model, dim_feedforward, dropout, factory)
        self.norm_first = norm_first
        self._norms_and_dropouts(2, d_model, layer_norm_eps, dropout, factory)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        _check_padding_mask(src_key_padding_mask)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x), self.dropout2)
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x, self.dropout2))
        return x


class TransformerDecoderLayer(_LayerBase):
    __constants__ = ["batch_first", "norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 **factory)
        self._feed_forward(d_model, dim_feedforward, dropout, factory)
        self.norm_first = norm_first
        self._norms_and_dropouts(3, d_model, layer_norm_eps, dropout, factory)
        self.activation = _get_activation_fn(activation) if isinstance(activation, str) else activation

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x), self.dropout3)
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x, self.dropout3))
        return x

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)


class TransformerEncoder(Module):
    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def _pads_to_zero(self, src, mask, padding):
        """Whether PyTorch 1.13 would run the layers on a nested tensor
        (its conditions, in its order), whose padded positions come back 0."""
        first = self.layers[0]
        if not isinstance(first, TransformerEncoderLayer) or first.norm_first or first.training:
            return False
        attn = first.self_attn
        if not attn.batch_first or not attn._qkv_same_embed_dim or not first.activation_relu_or_gelu:
            return False
        if first.norm1.eps != first.norm2.eps or src.dim() != 3 or not self.enable_nested_tensor:
            return False
        if padding is None or padding.dtype != torch.bool or mask is not None or attn.num_heads % 2 == 1:
            return False
        if self.mask_check:
            # left aligned: each row's kept positions come first
            for row in padding.tolist():
                if any(a and not b for a, b in zip(row, row[1:])):
                    return False
        params = [src] + [p for p in first.parameters()]
        return not (torch.is_grad_enabled() and any(t.requires_grad for t in params))

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        _check_padding_mask(src_key_padding_mask)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if self._pads_to_zero(src, mask, src_key_padding_mask):
            output = output.masked_fill(src_key_padding_mask.unsqueeze(-1), 0.0)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoder(Module):
    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        super().__init__()

        def stack(custom, layer_cls, stack_cls, num_layers):
            """The custom stack, else num_layers copies of one layer under
            a final LayerNorm (made in that order, as PyTorch's seed needs)."""
            if custom is not None:
                return custom
            layer = layer_cls(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                              batch_first, norm_first, **factory)
            return stack_cls(layer, num_layers, LayerNorm(d_model, eps=layer_norm_eps, **factory))

        self.encoder = stack(custom_encoder, TransformerEncoderLayer, TransformerEncoder, num_encoder_layers)
        self.decoder = stack(custom_decoder, TransformerDecoderLayer, TransformerDecoder, num_decoder_layers)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None):
        is_batched = src.dim() == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

    @staticmethod
    def generate_square_subsequent_mask(sz, device="cpu"):
        return torch.triu(torch.full((sz, sz), float("-inf"), device=device), diagonal=1)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
