"""Tensor printing with PyTorch's rules (torch/_tensor_str.py upstream):
the same formatter choices (integer mode, fixed point, scientific), the
same widths, the same summarization with '...' over 1000 elements."""

import math

PRECISION = 4
THRESHOLD = 1000
EDGEITEMS = 3
LINEWIDTH = 80


class _Formatter:
    def __init__(self, values, floating):
        self.floating = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len(str(v)))
            return
        vals = [v for v in values if math.isfinite(v) and v != 0]
        if not vals:
            return
        absvals = [abs(v) for v in vals]
        vmin, vmax = min(absvals), max(absvals)
        for v in vals:
            if v != math.ceil(v):
                self.int_mode = False
                break
        if self.int_mode:
            if vmax / vmin > 1000.0 or vmax > 1.0e8:
                self.sci_mode = True
                for v in vals:
                    self.max_width = max(self.max_width, len(("{:.%de}" % PRECISION).format(v)))
            else:
                for v in vals:
                    self.max_width = max(self.max_width, len("{:.0f}".format(v)) + 1)
        else:
            if vmax / vmin > 1000.0 or vmax > 1.0e8 or vmin < 1.0e-4:
                self.sci_mode = True
                for v in vals:
                    self.max_width = max(self.max_width, len(("{:.%de}" % PRECISION).format(v)))
            else:
                for v in vals:
                    self.max_width = max(self.max_width, len(("{:.%df}" % PRECISION).format(v)))

    def width(self):
        return self.max_width

    def format(self, value):
        if self.floating:
            if self.sci_mode:
                ret = ("{:%d.%de}" % (self.max_width, PRECISION)).format(value)
            elif self.int_mode:
                ret = "{:.0f}".format(value)
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = ("{:.%df}" % PRECISION).format(value)
        else:
            ret = str(value)
        return (self.max_width - len(ret)) * " " + ret


def _flatten(data, out):
    if isinstance(data, list):
        for d in data:
            _flatten(d, out)
    else:
        out.append(data)


def _summarize(data, shape):
    """The rows PyTorch keeps when a tensor is summarized: edge items only."""
    if not shape:
        return data
    if shape[0] > 2 * EDGEITEMS:
        head = data[:EDGEITEMS]
        tail = data[-EDGEITEMS:]
        return [_summarize(d, shape[1:]) for d in head] + [_summarize(d, shape[1:]) for d in tail]
    return [_summarize(d, shape[1:]) for d in data]


def _tensor_str_with_formatter(data, shape, indent, summarize, formatter, is_bool):
    dim = len(shape)
    if dim == 0:
        return formatter.format(data)
    if dim == 1:
        elems = [formatter.format(v) for v in data]
        if summarize and shape[0] > 2 * EDGEITEMS:
            elems = elems[:EDGEITEMS] + [" ..."] + elems[-EDGEITEMS:]
        width = formatter.width() + 2
        per_line = max(math.floor((LINEWIDTH - indent) / width), 1)
        lines = [", ".join(elems[i:i + per_line]) for i in range(0, len(elems), per_line)]
        return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"
    if summarize and shape[0] > 2 * EDGEITEMS:
        slices = ([_tensor_str_with_formatter(data[i], shape[1:], indent + 1, summarize, formatter, is_bool)
                   for i in range(EDGEITEMS)] + ["..."] +
                  [_tensor_str_with_formatter(data[i], shape[1:], indent + 1, summarize, formatter, is_bool)
                   for i in range(len(data) - EDGEITEMS, len(data))])
    else:
        slices = [_tensor_str_with_formatter(d, shape[1:], indent + 1, summarize, formatter, is_bool)
                  for d in data]
    sep = "," + "\n" * (dim - 1) + " " * (indent + 1)
    return "[" + sep.join(slices) + "]"


def _tensor_str(t, indent):
    shape = tuple(t.shape)
    numel = t.numel()
    if numel == 0:
        return "[]"
    summarize = numel > THRESHOLD
    data = t.tolist()
    if summarize:
        data_for_fmt = _summarize(data, shape)
    else:
        data_for_fmt = data
    flat = []
    _flatten(data_for_fmt, flat)
    is_bool = t.dtype.is_bool
    floating = t.dtype.is_floating_point
    formatter = _Formatter(flat, floating)
    return _tensor_str_with_formatter(data, shape, indent, summarize, formatter, is_bool)


def _str(t, prefix="tensor(", tensor_contents=None):
    import torch
    indent = len(prefix)
    suffixes = []
    if t.device.type != "cpu":
        suffixes.append("device='" + str(t.device) + "'")
    if t.numel() == 0 and t.dim() != 1:
        suffixes.append("size=" + str(tuple(t.shape)))
        body = "[]"
    else:
        body = _tensor_str(t, indent)
    default = torch.get_default_dtype()
    if t.dtype not in (default, torch.int64, torch.bool):
        suffixes.append("dtype=" + str(t.dtype))
    if t.requires_grad and prefix == "tensor(":
        suffixes.append("requires_grad=True")
    out = prefix + body
    for s in suffixes:
        out += ", " + s
    return out + ")"
