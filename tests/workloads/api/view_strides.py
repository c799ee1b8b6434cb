# Tensor.view of non-contiguous tensors, as ATen's computeStride allows:
# split/narrow/transpose results viewed without a copy (nanoGPT's
# q.view(B, T, nh, hs) of a split), the cases that must refuse, and
# reshape's view-or-copy choice, on CPU and DEV.
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def t(label, f):
    try:
        r = f()
        print(label, "->", list(r.shape), r.stride(), r.storage_offset(), r.cpu().flatten().tolist()[:6])
    except RuntimeError as e:
        print(label, "!!", e)


for dev in ("cpu", DEV):
    x = torch.arange(2 * 3 * 12.0, device=dev).view(2, 3, 12)
    q, k, v = x.split(4, dim=2)
    t("split view", lambda: k.view(2, 3, 2, 2))
    t("split flatten last", lambda: k.view(2, 3, 4))
    t("split merge rows", lambda: k.view(6, 4))
    t("split merge across", lambda: k.view(2, 12))
    t("transpose view", lambda: x.transpose(0, 1).view(3, 2, 12))
    t("transpose merge", lambda: x.transpose(0, 1).view(6, 12))
    t("narrow unsqueeze", lambda: x[:, 1:2, :].view(2, 12))
    t("expand view", lambda: torch.ones(3, 1, device=dev).expand(3, 4).view(3, 2, 2))
    t("expand merge", lambda: torch.ones(3, 1, device=dev).expand(3, 4).view(12))
    t("empty", lambda: torch.empty(0, 3, device=dev).t().view(3, 0, 1))
    t("scalar", lambda: torch.tensor(5.0, device=dev).view(1, 1))
    t("reshape view", lambda: k.reshape(6, 4))
    t("reshape copy", lambda: k.reshape(2, 12))
    print("reshape shares", k.reshape(6, 4).data_ptr() == k.data_ptr(), k.reshape(2, 12).data_ptr() == k.data_ptr())
# reshape's nodes (1.13): a view is ReshapeAliasBackward0, a copy is
# UnsafeViewBackward0 over CloneBackward0; view stays ViewBackward0
x = torch.randn(2, 3, 4, requires_grad=True)
z = x.transpose(0, 2).reshape(24)
print(x.reshape(6, 4).grad_fn.name(), x.view(6, 4).grad_fn.name(), z.grad_fn.name(),
      z.grad_fn.next_functions[0][0].name(), x.split(2, dim=2)[0].reshape(6, 2).grad_fn.name())
(z * torch.arange(24.0)).sum().backward()
print(x.grad.flatten().tolist()[:6])
