# nn.TransformerEncoderLayer/Encoder, DecoderLayer/Decoder and nn.Transformer
# against PyTorch 1.13: parameters from the seed, outputs and gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def r(t, digits=4):
    return [round(x, digits) + 0.0 for x in t.detach().cpu().flatten().tolist()]


def report(label, m, out, inputs):
    (out * torch.arange(out.numel(), dtype=out.dtype, device=out.device).view(out.shape).sin()).sum().backward()
    print(label, list(out.shape), r(out))
    for i, x in enumerate(inputs):
        print("  dx%d" % i, r(x.grad))
    for name, p in m.named_parameters():
        if p.grad is not None and ("weight" in name and "norm" not in name):
            print("  d" + name, list(p.shape), r(p.grad, 3)[:8])


def encoder_layer(label, dev, kw, shape, **fkw):
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(**kw)
    x = torch.randn(shape).to(dev).requires_grad_()
    m = m.to(dev)
    fkw = {n: a.to(dev) for n, a in fkw.items()}
    report(label, m, m(x, **fkw), [x])


def decoder_layer(label, dev, kw, shape, mem_shape, **fkw):
    torch.manual_seed(0)
    m = nn.TransformerDecoderLayer(**kw)
    x = torch.randn(shape).to(dev).requires_grad_()
    mem = torch.randn(mem_shape).to(dev).requires_grad_()
    m = m.to(dev)
    fkw = {n: a.to(dev) for n, a in fkw.items()}
    report(label, m, m(x, mem, **fkw), [x, mem])


torch.manual_seed(0)
print(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True))
print(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, norm_first=True))
print(nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, norm=nn.LayerNorm(8)))
print(nn.Transformer(8, 2, 1, 1, 16))
print(nn.Transformer.generate_square_subsequent_mask(3))

pad = torch.tensor([[False, False, False, True, True], [False, True, False, False, False]])
causal = nn.Transformer.generate_square_subsequent_mask(5)
for dev in ("cpu", DEV):  # the oracle runs both passes on the CPU
    print("== pass")
    encoder_layer("enc", dev, dict(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0), (5, 2, 4))
    encoder_layer("enc_gelu_bf", dev, dict(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0,
                                           activation="gelu", batch_first=True), (2, 5, 4),
                  src_key_padding_mask=pad)
    encoder_layer("enc_normfirst", dev, dict(d_model=4, nhead=1, dim_feedforward=6, dropout=0.0, norm_first=True,
                                             activation=torch.tanh, layer_norm_eps=1e-3), (5, 2, 4),
                  src_mask=causal)
    decoder_layer("dec", dev, dict(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0), (5, 2, 4), (3, 2, 4),
                  tgt_mask=causal)
    decoder_layer("dec_nf_bf", dev, dict(d_model=4, nhead=2, dim_feedforward=8, dropout=0.0, norm_first=True,
                                         batch_first=True), (2, 5, 4), (2, 3, 4),
                  tgt_key_padding_mask=pad, memory_key_padding_mask=torch.tensor([[False, False, True]] * 2))
    torch.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0), 2, norm=nn.LayerNorm(4))
    x = torch.randn(5, 2, 4).to(dev).requires_grad_()
    enc = enc.to(dev)
    report("encoder", enc, enc(x, mask=causal.to(dev), src_key_padding_mask=pad.to(dev)), [x])
    torch.manual_seed(0)
    t = nn.Transformer(4, 2, 1, 2, 8, dropout=0.0)
    src, tgt = torch.randn(5, 2, 4).to(dev).requires_grad_(), torch.randn(3, 2, 4).to(dev).requires_grad_()
    t = t.to(dev)
    report("transformer", t, t(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3).to(dev)),
           [src, tgt])
    # eval: PyTorch's fast path gives the math path's values (no padding here)
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(4, 2, 8, batch_first=True).to(dev).eval()
    with torch.no_grad():
        print("enc_eval", r(m(torch.randn(2, 3, 4).to(dev))))
    # eval with padding: PyTorch 1.13's nested-tensor path gives 0 at padded
    # positions (only with right padding)
    torch.manual_seed(0)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8, batch_first=True), 2, norm=nn.LayerNorm(4))
    enc = enc.to(dev).eval()
    x = torch.randn(2, 5, 4).to(dev)
    right = torch.tensor([[False, False, False, True, True], [False] * 5]).to(dev)
    with torch.no_grad():
        print("enc_eval_pad", r(enc(x, src_key_padding_mask=right)))
        print("enc_eval_pad_holes", r(enc(x, src_key_padding_mask=pad.to(dev))))
    print("enc_eval_pad_grad", r(enc(x.requires_grad_(), src_key_padding_mask=right)))

# dropout in training (MultiheadAttention's weights, the block's outputs)
for dev in ("cpu", DEV):
    torch.manual_seed(0)
    m = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.3).to(dev)
    x = torch.randn(5, 2, 8).to(dev)
    torch.manual_seed(1)
    a = m(x)
    b = m(x)
    torch.manual_seed(1)
    c = m(x)
    print("train differs", bool((a != b).any()), "repeats", bool((a == c).all()))
