# A user's script end to end, on CPU tensors (#16): its printed losses and
# values equal Debian's python3-torch 1.13 output for the same script.
import torch, torch.nn as nn, torch.nn.functional as F
torch.manual_seed(0)
dev = "cpu"
V, H = 20, 32
emb = nn.Embedding(V, H).to(dev)
enc = nn.GRU(H, H, batch_first=True, bidirectional=True).to(dev)
dec = nn.GRUCell(H + 2 * H, H).to(dev)
proj = nn.Linear(H, V).to(dev)
att = nn.Linear(2 * H, H, bias=False).to(dev)
params = [p for m in (emb, enc, dec, proj, att) for p in m.parameters()]
opt = torch.optim.AdamW(params, lr=1e-3)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 3))
src = torch.randint(0, V, (4, 7), device=dev)
tgt = torch.randint(0, V, (4, 5), device=dev)
for step in range(3):
    out, h = enc(emb(src))
    keys = att(out)
    state = h.mean(0)
    loss = 0
    tok = torch.zeros(4, dtype=torch.long, device=dev)
    for t in range(tgt.size(1)):
        scores = torch.bmm(keys, state.unsqueeze(2)).squeeze(2)
        w = F.softmax(scores, dim=1)
        ctx = torch.bmm(w.unsqueeze(1), out).squeeze(1)
        state = dec(torch.cat([emb(tok), ctx], 1), state)
        logits = proj(state)
        loss = loss + F.cross_entropy(logits, tgt[:, t])
        tok = tgt[:, t]
    opt.zero_grad(); loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step(); sched.step()
    print(step, round(loss.item() / tgt.size(1), 4), sched.get_last_lr())
print("OK")
