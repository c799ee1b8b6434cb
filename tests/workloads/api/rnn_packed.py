# torch.nn.utils.rnn (#16): pack_padded_sequence (sorted or not), the
# PackedSequence's fields, pad_packed_sequence with total_length, their
# gradient, pad/pack/unpack_sequence, and LSTM, GRU and RNN (two layers,
# uni- and bidirectional) over packed batches: outputs, last states and
# gradients. The expected output is what Debian's python3-torch 1.13
# prints for this script.
import torch, torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence, unpack_sequence
torch.manual_seed(0)
x = torch.randn(4, 3, 2, requires_grad=True)
p = pack_padded_sequence(x, [4, 2, 3], enforce_sorted=False)
print(p.data.detach(), p.batch_sizes, p.sorted_indices, p.unsorted_indices)
try:
    pack_padded_sequence(x, [2, 4, 3])
except Exception as e:
    print(type(e).__name__, e)
o, l = pad_packed_sequence(p, batch_first=True, total_length=5)
print(o.shape, l)
o.sum().backward(); print(x.grad[:, :, 0])
print(pack_sequence([torch.ones(2), torch.ones(3)], enforce_sorted=False).batch_sizes)
print(pad_sequence([torch.ones(2), torch.ones(3)], batch_first=True, padding_value=-1))
print([t.tolist() for t in unpack_sequence(pack_sequence([torch.arange(3.), torch.arange(2.)]))])
for mode in ("lstm", "gru", "rnn"):
    for bi in (False, True):
        torch.manual_seed(1)
        cls = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[mode]
        m = cls(2, 3, num_layers=2, bidirectional=bi, batch_first=True)
        seq = torch.randn(3, 4, 2)
        packed = pack_padded_sequence(seq, torch.tensor([2, 4, 1]), batch_first=True, enforce_sorted=False)
        out, h = m(packed)
        padded, lens = pad_packed_sequence(out, batch_first=True)
        hn = h[0] if mode == "lstm" else h
        print(mode, bi, padded.shape, lens.tolist(), [round(v, 4) for v in padded.reshape(-1).tolist()[:8]],
              [round(v, 4) for v in hn.reshape(-1).tolist()[:8]])
        padded.sum().backward()
        print("  grad", round(m.weight_hh_l0.grad.abs().sum().item(), 4))
m = nn.LSTM(2, 3)
h0 = (torch.randn(1, 3, 3), torch.randn(1, 3, 3))
out, (h, c) = m(pack_sequence([torch.randn(3, 2), torch.randn(2, 2), torch.randn(1, 2)]), h0)
print(out.data.shape, [round(v, 4) for v in h.reshape(-1).tolist()])
try:
    m(pack_sequence([torch.randn(3, 5)]))
except Exception as e:
    print(type(e).__name__, e)
