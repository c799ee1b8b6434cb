"""torch.nn.utils.rnn: PackedSequence and the padding helpers.

A packed batch is its sequences' steps, time-major: at step t the first
batch_sizes[t] sequences of the batch sorted by decreasing length (the
sequences still running). Packing gathers those rows (a cat of slices,
so the gradient flows back); unpacking scatters them into a padded
tensor. The recurrent layers run packed input step by step over the
shrinking batch (torch/nn/_rnn.py), as ATen's PackedLayer does."""

from collections import namedtuple

import torch

_Fields = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_Fields):
    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _apply(self, fn):
        # the data moves; the permutations follow it to its device, the
        # batch sizes stay on the CPU
        data = fn(self.data)
        move = lambda t: None if t is None else t.to(data.device)  # noqa: E731
        return type(self)(data, self.batch_sizes, move(self.sorted_indices), move(self.unsorted_indices))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return self._apply(lambda t: data)

    def cuda(self, *args, **kwargs):
        return self.to(*args, device="cuda", **kwargs) if not args else self._apply(lambda t: t.cuda(*args))

    def cpu(self):
        return self.to(device="cpu")

    def double(self):
        return self.to(dtype=torch.float64)

    def float(self):
        return self.to(dtype=torch.float32)

    def half(self):
        return self.to(dtype=torch.float16)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return self.data.is_pinned()


def _invert_permutation(permutation):
    if permutation is None:
        return None
    output = torch.empty_like(permutation)
    output.scatter_(0, permutation, torch.arange(0, permutation.numel(), device=permutation.device))
    return output


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if torch.is_tensor(lengths):
        lengths = lengths.to(torch.int64).cpu()
    else:
        lengths = torch.as_tensor(lengths, dtype=torch.int64)
    if enforce_sorted:
        sorted_indices = None
        if not bool((lengths[:-1] >= lengths[1:]).all()):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                               "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
    else:
        lengths, sorted_indices = torch.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    lens = lengths.tolist()
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if lens and lens[0] > input.size(0):
        raise RuntimeError("Expected sequence length to be larger than or equal to the maximal length, got {} and "
                           "{}".format(input.size(0), lens[0]))
    sizes = [sum(1 for n in lens if n > t) for t in range(lens[0] if lens else 0)]
    data = torch.cat([input[t, :b] for t, b in enumerate(sizes)], 0) if sizes else input.reshape(
        (0,) + tuple(input.shape[2:]))
    return PackedSequence(data, torch.tensor(sizes, dtype=torch.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    sizes = sequence.batch_sizes.tolist()
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             "but got total_length={} and max sequence length being {}".format(total_length, steps))
        steps = total_length
    batch = sizes[0] if sizes else 0
    data = sequence.data
    out = data.new_full((steps, batch) + tuple(data.shape[1:]), padding_value)
    rows, offset = [], 0
    for t, b in enumerate(sizes):
        rows.append((t, offset, b))
        offset += b
    if rows:
        # each step's rows into its slot: one index_put of all packed rows
        time = torch.tensor([t for t, _, b in rows for _ in range(b)], dtype=torch.int64, device=data.device)
        slot = torch.tensor([i for _, _, b in rows for i in range(b)], dtype=torch.int64, device=data.device)
        out = out.index_put((time, slot), data)
    lengths = torch.tensor([sum(1 for b in sizes if b > i) for i in range(batch)], dtype=torch.int64)
    if sequence.unsorted_indices is not None:
        out = out.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu()]
    if batch_first:
        out = out.transpose(0, 1)
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    if isinstance(sequences, torch.Tensor):
        sequences = sequences.unbind(0)
    longest = max(s.size(0) for s in sequences)
    trailing = tuple(sequences[0].shape[1:])
    out = sequences[0].new_full((len(sequences), longest) + trailing if batch_first
                                else (longest, len(sequences)) + trailing, padding_value)
    for i, s in enumerate(sequences):
        if batch_first:
            out[i, :s.size(0)] = s
        else:
            out[:s.size(0), i] = s
    return out


def pack_sequence(sequences, enforce_sorted=True):
    lengths = torch.as_tensor([s.size(0) for s in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def unpack_sequence(packed_sequences):
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
