"""Attention: F.scaled_dot_product_attention, F.multi_head_attention_forward
and nn.MultiheadAttention, composed from differentiable ops (matmul, bmm,
softmax, masked_fill, dropout, linear) the way PyTorch's math paths are,
so their values, gradients and traces are PyTorch's.

multi_head_attention_forward is PyTorch 1.13's (torch/nn/functional.py)
with 2.x's is_causal hint; scaled_dot_product_attention is 2.x's API over
ATen's math path (_scaled_dot_product_attention_math)."""

import math
import warnings

import torch
from torch import _C
from . import functional as F
from . import init
from .modules import Linear, Module
from .parameter import Parameter


class _op_range:
    """An aten:: span around a composite's ops, as PyTorch's profiler
    shows a CompositeImplicit op around the ops it calls. A class, not
    contextlib's generator: the span's call site is the first frame
    outside the torch package, and contextlib's would come first."""

    def __init__(self, name, tensor):
        self.name = name
        self.device = tensor.device.index if tensor.is_cuda else -1

    def __enter__(self):
        self.correlation = _C._api_range_push(self.name, self.device)

    def __exit__(self, *exc):
        _C._api_range_pop(self.correlation)
        return False


def _bool_to_additive(mask, dtype):
    """A bool mask (True = masked out) as the additive float mask, -inf where True."""
    return torch.zeros_like(mask, dtype=dtype).masked_fill(mask, float("-inf"))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                 scale=None):
    """softmax(q k^T * scale + mask) v; a bool attn_mask's True takes part."""
    with _op_range("aten::scaled_dot_product_attention", query):
        L, S = query.size(-2), key.size(-2)
        if is_causal:
            if attn_mask is not None:
                raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                                   "when is_causal=True")
            attn_mask = torch.ones(L, S, dtype=torch.bool, device=query.device).tril()
        if attn_mask is not None and attn_mask.dtype == torch.bool:
            attn_mask = _bool_to_additive(attn_mask.logical_not(), query.dtype)
        # ATen scales q and k by sqrt(scale) each, as its math path does
        factor = math.sqrt(1.0 / math.sqrt(query.size(-1)) if scale is None else scale)
        attn = (query * factor) @ (key.transpose(-2, -1) * factor)
        if attn_mask is not None:
            attn = attn + attn_mask
        attn = attn.softmax(-1)
        if dropout_p > 0.0:
            attn = F.dropout(attn, dropout_p)
        return attn @ value


def _in_projection_packed(q, k, v, w, b=None):
    E = q.size(-1)
    if k is v:
        if q is k:
            return F.linear(q, w, b).chunk(3, dim=-1)
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        return (F.linear(q, w_q, b_q),) + tuple(F.linear(k, w_kv, b_kv).chunk(2, dim=-1))
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    Eq, Ek, Ev = q.size(-1), k.size(-1), v.size(-1)
    assert tuple(w_q.shape) == (Eq, Eq), \
        "expecting query weights shape of {}, but got {}".format((Eq, Eq), w_q.shape)
    assert tuple(w_k.shape) == (Eq, Ek), \
        "expecting key weights shape of {}, but got {}".format((Eq, Ek), w_k.shape)
    assert tuple(w_v.shape) == (Eq, Ev), \
        "expecting value weights shape of {}, but got {}".format((Eq, Ev), w_v.shape)
    return F.linear(q, w_q, b_q), F.linear(k, w_k, b_k), F.linear(v, w_v, b_v)


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    """PyTorch's checks of a batched (3-D) or unbatched (2-D) query and
    its key, value and masks; whether the query is batched."""
    d = query.dim()
    if d not in (2, 3):
        raise AssertionError("query should be unbatched 2D or batched 3D tensor but received {}-D query tensor"
                             .format(d))
    kind = "batched (3-D)" if d == 3 else "unbatched (2-D)"
    assert key.dim() == d and value.dim() == d, (
        "For {} `query`, expected `key` and `value` to be {}-D but found {}-D and {}-D "
        "tensors respectively".format(kind, d, key.dim(), value.dim()))
    if key_padding_mask is not None:
        assert key_padding_mask.dim() == d - 1, (
            "For {} `query`, expected `key_padding_mask` to be `None` or {}-D but found "
            "{}-D tensor instead".format(kind, d - 1, key_padding_mask.dim()))
    if attn_mask is not None:
        assert attn_mask.dim() in (2, 3), (
            "For {} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
            "{}-D tensor instead".format(kind, attn_mask.dim()))
        if d == 2 and attn_mask.dim() == 3:
            expected = (num_heads, query.shape[0], key.shape[0])
            assert tuple(attn_mask.shape) == expected, \
                "Expected `attn_mask` shape to be {} but got {}".format(expected, attn_mask.shape)
    return d == 3


def _pad_last(t):
    """F.pad(t, (0, 1)): one zero (False) column more."""
    return torch.cat([t, torch.zeros(tuple(t.shape[:-1]) + (1,), dtype=t.dtype, device=t.device)], -1)


def _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads):
    if attn_mask.dtype == torch.uint8:
        warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.")
        attn_mask = attn_mask.to(torch.bool)
    else:
        assert attn_mask.dtype.is_floating_point or attn_mask.dtype == torch.bool, \
            "Only float, byte, and bool types are supported for attn_mask, not {}".format(attn_mask.dtype)
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError("The shape of the 2D attn_mask is {}, but should be {}.".format(
                attn_mask.shape, (tgt_len, src_len)))
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
            raise RuntimeError("The shape of the 3D attn_mask is {}, but should be {}.".format(
                attn_mask.shape, (bsz * num_heads, tgt_len, src_len)))
        return attn_mask
    raise RuntimeError("attn_mask's dimension {} is not supported".format(attn_mask.dim()))


def _merge_padding_mask(attn_mask, key_padding_mask, bsz, num_heads, src_len):
    assert tuple(key_padding_mask.shape) == (bsz, src_len), \
        "expecting key_padding_mask shape of {}, but got {}".format((bsz, src_len), key_padding_mask.shape)
    key_padding_mask = key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1).reshape(
        bsz * num_heads, 1, src_len)
    if attn_mask is None:
        return key_padding_mask
    if attn_mask.dtype == torch.bool:
        return attn_mask.logical_or(key_padding_mask)
    return attn_mask.masked_fill(key_padding_mask, float("-inf"))


def _split_heads(t, length, bsz, num_heads, head_dim):
    return t.contiguous().view(length, bsz * num_heads, head_dim).transpose(0, 1)


def _static_kv(static, bsz, num_heads, head_dim, which):
    assert static.size(0) == bsz * num_heads, \
        "expecting {}.size(0) of {}, but got {}".format(which, bsz * num_heads, static.size(0))
    assert static.size(2) == head_dim, \
        "expecting {}.size(2) of {}, but got {}".format(which, head_dim, static.size(2))
    return static


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight,
                                 out_proj_bias, training=True, key_padding_mask=None, need_weights=True,
                                 attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None,
                                 average_attn_weights=True, is_causal=False):
    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if key_padding_mask is not None and key_padding_mask.dtype != torch.bool \
            and not key_padding_mask.dtype.is_floating_point:
        raise AssertionError("only bool and floating types of key_padding_mask are supported")
    # 2.x's is_causal is a hint that attn_mask is the causal mask: the mask decides
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                           "module method `generate_square_subsequent_mask` to create this mask.")
    assert embed_dim == embed_dim_to_check, \
        "was expecting embedding dimension of {}, but got {}".format(embed_dim_to_check, embed_dim)
    head_dim = embed_dim // num_heads
    assert head_dim * num_heads == embed_dim, "embed_dim {} not divisible by num_heads {}".format(
        embed_dim, num_heads)
    if use_separate_proj_weight:
        assert tuple(key.shape[:2]) == tuple(value.shape[:2]), \
            "key's sequence and batch dims {} do not match value's {}".format(key.shape[:2], value.shape[:2])
        assert q_proj_weight is not None, "use_separate_proj_weight is True but q_proj_weight is None"
        assert k_proj_weight is not None, "use_separate_proj_weight is True but k_proj_weight is None"
        assert v_proj_weight is not None, "use_separate_proj_weight is True but v_proj_weight is None"
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)
    else:
        assert tuple(key.shape) == tuple(value.shape), \
            "key shape {} does not match value shape {}".format(key.shape, value.shape)
        assert in_proj_weight is not None, "use_separate_proj_weight is False but in_proj_weight is None"
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    if bias_k is not None and bias_v is not None:
        assert static_k is None, "bias cannot be added to static key."
        assert static_v is None, "bias cannot be added to static value."
        # PyTorch repeats; expand gives the same values, and a gradient
        k = torch.cat([k, bias_k.expand(1, bsz, bias_k.size(-1))])
        v = torch.cat([v, bias_v.expand(1, bsz, bias_v.size(-1))])
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
    else:
        assert bias_k is None
        assert bias_v is None
    q = _split_heads(q, tgt_len, bsz, num_heads, head_dim)
    k = _split_heads(k, k.shape[0], bsz, num_heads, head_dim) if static_k is None \
        else _static_kv(static_k, bsz, num_heads, head_dim, "static_k")
    v = _split_heads(v, v.shape[0], bsz, num_heads, head_dim) if static_v is None \
        else _static_kv(static_v, bsz, num_heads, head_dim, "static_v")
    if add_zero_attn:
        zeros = torch.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k = torch.cat([k, zeros], dim=1)
        v = torch.cat([v, zeros], dim=1)
        attn_mask = None if attn_mask is None else _pad_last(attn_mask)
        key_padding_mask = None if key_padding_mask is None else _pad_last(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        attn_mask = _merge_padding_mask(attn_mask, key_padding_mask, bsz, num_heads, src_len)
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_mask = _bool_to_additive(attn_mask, q.dtype)
    if not training:
        dropout_p = 0.0
    q_scaled = q / math.sqrt(q.shape[2])
    # torch.baddbmm(attn_mask, q, k^T) in PyTorch: the mask added after the bmm
    weights = torch.bmm(q_scaled, k.transpose(-2, -1))
    if attn_mask is not None:
        weights = attn_mask + weights
    weights = F.softmax(weights, dim=-1)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    out = torch.bmm(weights, v).transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
    out = F.linear(out, out_proj_weight, out_proj_bias).view(tgt_len, bsz, out_proj_weight.size(0))
    if not need_weights:
        return (out if is_batched else out.squeeze(1)), None
    weights = weights.view(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.sum(dim=1) / num_heads
    if not is_batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights


class NonDynamicallyQuantizableLinear(Linear):
    pass


class MultiheadAttention(Module):
    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        assert self.head_dim * num_heads == self.embed_dim, "embed_dim must be divisible by num_heads"
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(torch.empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(torch.empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(torch.empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(torch.empty((3 * embed_dim, embed_dim), **factory))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = Parameter(torch.empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(torch.empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        # PyTorch's order, so a seed gives its values
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        is_batched = query.dim() == 3
        if key_padding_mask is not None and key_padding_mask.dtype != torch.bool \
                and not key_padding_mask.dtype.is_floating_point:
            raise AssertionError("only bool and floating types of key_padding_mask are supported")
        # PyTorch's eval fast path (_native_multi_head_attention) gives these values too
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = [x.transpose(1, 0) for x in (query, key)]
                    value = key
            else:
                query, key, value = [x.transpose(1, 0) for x in (query, key, value)]
        separate = {} if self._qkv_same_embed_dim else {
            "use_separate_proj_weight": True, "q_proj_weight": self.q_proj_weight,
            "k_proj_weight": self.k_proj_weight, "v_proj_weight": self.v_proj_weight}
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
            self.out_proj.bias, training=self.training, key_padding_mask=key_padding_mask,
            need_weights=need_weights, attn_mask=attn_mask, average_attn_weights=average_attn_weights,
            is_causal=is_causal, **separate)
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights
