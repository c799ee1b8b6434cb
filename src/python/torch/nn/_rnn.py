"""Recurrent layers: nn.RNN, nn.LSTM, nn.GRU and their cells, as PyTorch
1.13's torch/nn/modules/rnn.py declares them (parameter names, shapes,
registration order, so a seed gives PyTorch's weights), computed step by
step from differentiable ops (linear, sigmoid, tanh, relu, stack, cat) in
ATen's gate order: LSTM i, f, g, o; GRU r, z, n with
n = tanh(W_in x + b_in + r * (W_hn h + b_hn)).

The input projection of a whole sequence is one matmul (as cuDNN does it);
each step then multiplies the hidden state. A PackedSequence runs step by
step over the shrinking batch of sequences still running, each step
projecting its own rows, as ATen's PackedLayer and ReversedPackedLayer
do."""

import math
import numbers
import warnings

import torch
from torch import _unmodeled
from . import functional as F
from . import init
from ._attention import _op_range
from .modules import Module
from .parameter import Parameter


def _is_packed(input):
    return type(input).__name__ == "PackedSequence"


def _rows(state, begin, end):
    # rows [begin, end) of a state (h, or LSTM's (h, c))
    if isinstance(state, tuple):
        return tuple(s[begin:end] for s in state)
    return state[begin:end]


def _cat_rows(parts):
    if isinstance(parts[0], tuple):
        return tuple(torch.cat([p[i] for p in parts], 0) for i in range(len(parts[0])))
    return torch.cat(parts, 0)


def _run_packed(step, data, state, params, sizes, reverse):
    """One layer, one direction over packed rows (sizes: the batch at each
    step): its packed outputs and its last state, rows in batch order."""
    w_ih, w_hh, b_ih, b_hh, w_hr = params
    starts = [0]
    for b in sizes[:-1]:
        starts.append(starts[-1] + b)
    outs = [None] * len(sizes)
    if reverse:
        # the batch grows backwards: a sequence joins at its last step,
        # from its initial state
        hidden, held = _rows(state, 0, sizes[-1]), sizes[-1]
        for t in range(len(sizes) - 1, -1, -1):
            if sizes[t] > held:
                hidden = _cat_rows([hidden, _rows(state, held, sizes[t])])
                held = sizes[t]
            xw = F.linear(data[starts[t]:starts[t] + sizes[t]], w_ih, b_ih)
            hidden = step(xw, hidden, w_hh, b_hh, w_hr)
            outs[t] = hidden[0] if isinstance(hidden, tuple) else hidden
        return torch.cat(outs, 0), hidden
    finished, hidden, held = [], state, sizes[0]
    for t, b in enumerate(sizes):
        if b < held:
            # the sequences that ended keep their state from here
            finished.append(_rows(hidden, b, held))
            hidden, held = _rows(hidden, 0, b), b
        xw = F.linear(data[starts[t]:starts[t] + b], w_ih, b_ih)
        hidden = step(xw, hidden, w_hh, b_hh, w_hr)
        outs[t] = hidden[0] if isinstance(hidden, tuple) else hidden
    finished.append(hidden)
    return torch.cat(outs, 0), _cat_rows(finished[::-1])


# -- one step of each cell (x: (batch, in), h: (batch, hidden)); xw is x's
# projection W_ih x + b_ih, computed before the loop ------------------------

def _rnn_tanh_step(xw, state, w_hh, b_hh, w_hr=None):
    return F.linear(state, w_hh, b_hh).add(xw).tanh()


def _rnn_relu_step(xw, state, w_hh, b_hh, w_hr=None):
    return F.linear(state, w_hh, b_hh).add(xw).relu()


def _gru_step(xw, state, w_hh, b_hh, w_hr=None):
    i_r, i_z, i_n = xw.chunk(3, 1)
    h_r, h_z, h_n = F.linear(state, w_hh, b_hh).chunk(3, 1)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return n + z * (state - n)


def _lstm_step(xw, state, w_hh, b_hh, w_hr=None):
    h, c = state
    gates = xw + F.linear(h, w_hh, b_hh)
    i, f, g, o = gates.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


_STEPS = {"RNN_TANH": _rnn_tanh_step, "RNN_RELU": _rnn_relu_step, "GRU": _gru_step, "LSTM": _lstm_step}
# the aten op each mode is in PyTorch, whose span holds the steps' ops
_ATEN = {"RNN_TANH": "rnn_tanh", "RNN_RELU": "rnn_relu", "GRU": "gru", "LSTM": "lstm"}
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}


def _run_direction(step, x, state, params, reverse):
    """One layer, one direction over x (seq, batch, in): its outputs
    (seq, batch, hidden) and its last state."""
    w_ih, w_hh, b_ih, b_hh, w_hr = params
    xw = F.linear(x, w_ih, b_ih)
    order = range(x.size(0) - 1, -1, -1) if reverse else range(x.size(0))
    outs = [None] * x.size(0)
    for t in order:
        state = step(xw[t], state, w_hh, b_hh, w_hr)
        outs[t] = state[0] if isinstance(state, tuple) else state
    return torch.stack(outs), state


class RNNBase(Module):
    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
                     "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          "expects num_layers greater than 1, but got dropout={} and num_layers={}".format(
                              dropout, num_layers), stacklevel=3)
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self._register_weights(_GATES[mode] * hidden_size, device, dtype)
        self.reset_parameters()

    def _register_weights(self, gate_size, device, dtype):
        factory = {"device": device, "dtype": dtype}
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(self.num_layers):
            for direction in range(num_directions):
                layer_input = self.input_size if layer == 0 else real_hidden * num_directions
                shapes = [("weight_ih_l{}{}", (gate_size, layer_input)),
                          ("weight_hh_l{}{}", (gate_size, real_hidden))]
                if self.bias:
                    shapes += [("bias_ih_l{}{}", (gate_size,)), ("bias_hh_l{}{}", (gate_size,))]
                if self.proj_size > 0:
                    shapes += [("weight_hr_l{}{}", (self.proj_size, self.hidden_size))]
                suffix = "_reverse" if direction == 1 else ""
                names = [name.format(layer, suffix) for name, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(torch.empty(shape, **factory)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        pass

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _layer_params(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""
        get = lambda name: getattr(self, name.format(layer, suffix), None)  # noqa: E731
        return (get("weight_ih_l{}{}"), get("weight_hh_l{}{}"), get("bias_ih_l{}{}"), get("bias_hh_l{}{}"),
                get("weight_hr_l{}{}"))

    def _check_input(self, input):
        if input.dim() != 3:
            raise RuntimeError("input must have 3 dimensions, got {}".format(input.dim()))
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected {}, got {}".format(
                self.input_size, input.size(-1)))

    def _check_hidden(self, hx, size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.shape) != size:
            raise RuntimeError(msg.format(size, list(hx.shape)))

    def _batch_input(self, input, hx, n_states):
        """input as (seq, batch, feature) and hx batched: PyTorch's
        unbatched and batch_first handling. hx is a tuple of n_states."""
        is_batched = input.dim() == 3
        want = 3 if is_batched else 2
        kind = "batched 3-D" if is_batched else "unbatched 2-D"
        if hx is not None and any(h.dim() != want for h in hx):
            if n_states == 1:
                raise RuntimeError("For {} input, hx should also be {}-D but got {}-D tensor".format(
                    kind, want, hx[0].dim()))
            raise RuntimeError("For {} input, hx and cx should also be {}-D but got ({}-D, {}-D) tensors".format(
                kind, want, hx[0].dim(), hx[1].dim()))
        if not is_batched:
            input = input.unsqueeze(1)
            hx = None if hx is None else tuple(h.unsqueeze(1) for h in hx)
        elif self.batch_first:
            input = input.transpose(0, 1)
        return input, hx, is_batched

    def _unbatch_output(self, output, states, is_batched):
        if not is_batched:
            return output.squeeze(1), tuple(s.squeeze(1) for s in states)
        if self.batch_first:
            output = output.transpose(0, 1)
        return output, states

    def _run(self, x, states, sizes=None):
        """All layers over x (seq, batch, in), or packed rows with sizes,
        from states, a list per layer*direction of each one's state: the
        output and last states."""
        with _op_range("aten::" + _ATEN[self.mode], x):
            return self._run_layers(_STEPS[self.mode], x, states, sizes)

    def _forward_packed(self, packed, hx, n_states):
        """A PackedSequence's run: hx taken into the sorted batch order,
        the outputs packed the same way, the last states back in the
        caller's order."""
        from .utils.rnn import PackedSequence
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        if data.dim() != 2:
            raise RuntimeError("input must have 2 dimensions, got {}".format(data.dim()))
        if self.input_size != data.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected {}, got {}".format(
                self.input_size, data.size(-1)))
        sizes = batch_sizes.tolist()
        n = self.num_layers * (2 if self.bidirectional else 1)
        widths = (self.proj_size if getattr(self, "proj_size", 0) > 0 else self.hidden_size, self.hidden_size)
        shapes = [(n, sizes[0], widths[i]) for i in range(n_states)]
        if hx is None:
            hx = tuple(torch.zeros(shape, dtype=data.dtype, device=data.device) for shape in shapes)
        else:
            if sorted_indices is not None:
                hx = tuple(h.index_select(1, sorted_indices) for h in hx)
            for i, (h, shape) in enumerate(zip(hx, shapes)):
                self._check_hidden(h, shape, "Expected hidden[1] size {}, got {}" if i else
                                   "Expected hidden size {}, got {}")
        if n_states == 1:
            states = list(hx[0].unbind(0))
        else:
            states = list(zip(*(h.unbind(0) for h in hx)))
        out, last = self._run(data, states, sizes)
        if n_states == 1:
            finals = (torch.stack(last),)
        else:
            finals = tuple(torch.stack([s[i] for s in last]) for i in range(n_states))
        if unsorted_indices is not None:
            finals = tuple(h.index_select(1, unsorted_indices) for h in finals)
        output = PackedSequence(out, batch_sizes, sorted_indices, unsorted_indices)
        return output, finals[0] if n_states == 1 else finals

    def _run_layers(self, step, x, states, sizes=None):
        num_directions = 2 if self.bidirectional else 1
        last = []
        for layer in range(self.num_layers):
            outs = []
            for direction in range(num_directions):
                idx = layer * num_directions + direction
                params = self._layer_params(layer, direction)
                if sizes is None:
                    out, state = _run_direction(step, x, states[idx], params, direction == 1)
                else:
                    out, state = _run_packed(step, x, states[idx], params, sizes, direction == 1)
                outs.append(out)
                last.append(state)
            x = outs[0] if num_directions == 1 else torch.cat(outs, x.dim() - 1)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, last


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("Unknown nonlinearity '{}'".format(self.nonlinearity))
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._forward_packed(input, None if hx is None else (hx,), 1)
        x, hx, is_batched = self._batch_input(input, None if hx is None else (hx,), 1)
        self._check_input(x)
        size = (self.num_layers * (2 if self.bidirectional else 1), x.size(1), self.hidden_size)
        if hx is None:
            h0 = torch.zeros(size, dtype=x.dtype, device=x.device)
        else:
            h0 = hx[0]
            self._check_hidden(h0, size)
        out, last = self._run(x, list(h0.unbind(0)))
        out, (h_n,) = self._unbatch_output(out, (torch.stack(last),), is_batched)
        return out, h_n


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    forward = RNN.forward


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        if _is_packed(input):
            return self._forward_packed(input, hx, 2)
        x, hx, is_batched = self._batch_input(input, hx, 2)
        self._check_input(x)
        n = self.num_layers * (2 if self.bidirectional else 1)
        h_size = (n, x.size(1), self.proj_size if self.proj_size > 0 else self.hidden_size)
        c_size = (n, x.size(1), self.hidden_size)
        if hx is None:
            h0 = torch.zeros(h_size, dtype=x.dtype, device=x.device)
            c0 = torch.zeros(c_size, dtype=x.dtype, device=x.device)
        else:
            h0, c0 = hx
            self._check_hidden(h0, h_size)
            self._check_hidden(c0, c_size, "Expected hidden[1] size {}, got {}")
        out, last = self._run(x, list(zip(h0.unbind(0), c0.unbind(0))))
        states = (torch.stack([h for h, _ in last]), torch.stack([c for _, c in last]))
        return self._unbatch_output(out, states, is_batched)


# -- cells ----------------------------------------------------------------------

class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size), **factory))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size), **factory))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    reset_parameters = RNNBase.reset_parameters

    def _cell(self, step, input, hx, n_states):
        with _op_range("aten::" + _CELL_OPS[step], input):
            return self._cell_ops(step, input, hx, n_states)

    def _cell_ops(self, step, input, hx, n_states):
        assert input.dim() in (1, 2), "{}: Expected input to be 1-D or 2-D but received {}-D tensor".format(
            type(self).__name__, input.dim())
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = torch.zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)
            hx = (zeros,) * n_states
        elif not is_batched:
            hx = tuple(h.unsqueeze(0) for h in hx)
        xw = F.linear(input, self.weight_ih, self.bias_ih)
        out = step(xw, hx if n_states == 2 else hx[0], self.weight_hh, self.bias_hh)
        out = out if isinstance(out, tuple) else (out,)
        if not is_batched:
            out = tuple(o.squeeze(0) for o in out)
        return out if n_states == 2 else out[0]


_CELL_OPS = {_rnn_tanh_step: "rnn_tanh_cell", _rnn_relu_step: "rnn_relu_cell", _lstm_step: "lstm_cell",
             _gru_step: "gru_cell"}


class RNNCell(RNNCellBase):
    __constants__ = ["input_size", "hidden_size", "bias", "nonlinearity"]

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        if self.nonlinearity == "tanh":
            step = _rnn_tanh_step
        elif self.nonlinearity == "relu":
            step = _rnn_relu_step
        else:
            raise RuntimeError("Unknown nonlinearity: {}".format(self.nonlinearity))
        return self._cell(step, input, None if hx is None else (hx,), 1)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell(_lstm_step, input, hx, 2)


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        return self._cell(_gru_step, input, None if hx is None else (hx,), 1)
