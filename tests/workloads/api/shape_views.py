# Shape ops: views (narrow, unbind, split, chunk, movedim, permute, flatten,
# squeeze) and joins (cat, stack, hstack, vstack, dstack, column_stack):
# values, shapes, strides (views launch nothing), dtype promotion, empty
# tensors and error texts. The expected output was generated with Debian's
# python3-torch (PyTorch 1.13, CPU) running this same script: there both
# passes run on the CPU; under Tensorscope the second runs on CUDA.
import torch

DEV = "cuda" if torch.cuda.is_available() else "cpu"


def t(label, f):
    try:
        r = f()
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)
        return
    print(label, "->", show(r))


def show(r):
    if isinstance(r, torch.Tensor):
        return "%s %s %s %s" % (r.dtype, list(r.shape), list(r.stride()), r.cpu().tolist())
    if isinstance(r, (tuple, list)):
        return "(" + "; ".join(show(x) for x in r) + ")"
    return repr(r)


for dev in ("cpu", DEV):
    x = torch.arange(24.0, device=dev).reshape(2, 3, 4)
    s = torch.tensor(5.0, device=dev)
    e = torch.ones(0, device=dev)
    print("--- pass")
    t("narrow", lambda: x.narrow(1, 1, 2))
    t("narrow neg start", lambda: x.narrow(-1, -2, 2))
    t("narrow end", lambda: x.narrow(1, 3, 0))
    t("torch.narrow", lambda: torch.narrow(x, 2, 0, 1))
    t("narrow too long", lambda: x.narrow(1, 1, 5))
    t("narrow neg length", lambda: x.narrow(1, 1, -1))
    t("narrow bad dim", lambda: x.narrow(3, 0, 1))
    t("narrow bad start", lambda: x.narrow(1, 4, 0))
    t("narrow 0-dim", lambda: s.narrow(0, 0, 1))
    t("unbind", lambda: x.unbind(1))
    t("torch.unbind", lambda: torch.unbind(x[0], -1))
    t("unbind bad dim", lambda: x.unbind(5))
    t("unbind 0-dim", lambda: s.unbind())
    t("split", lambda: x.split(2, 2))
    t("split sizes", lambda: x.split([1, 2], 1))
    t("torch.split", lambda: torch.split(x, 1))
    t("split empty", lambda: e.split(2))
    t("split 0", lambda: x.split(0))
    t("split neg", lambda: x.split(-1))
    t("split bad sum", lambda: x.split([1, 1], 1))
    t("split neg entry", lambda: torch.arange(5, device=dev).split([2, -1, 4]))
    t("split 0-dim", lambda: s.split(1))
    t("chunk", lambda: x.chunk(3, 2))
    t("chunk uneven", lambda: torch.arange(5, device=dev).chunk(3))
    t("chunk more", lambda: torch.arange(2, device=dev).chunk(4))
    t("chunk empty", lambda: e.chunk(3))
    t("chunk 0", lambda: x.chunk(0))
    t("chunk 0-dim", lambda: s.chunk(1))
    t("permute", lambda: x.permute(2, 0, 1))
    t("permute list", lambda: x.permute([-1, 1, 0]))
    t("torch.permute", lambda: torch.permute(x, (1, 0, 2)))
    t("permute short", lambda: x.permute(0, 1))
    t("permute dup", lambda: x.permute(0, 1, 1))
    t("permute bad", lambda: x.permute(0, 1, 3))
    t("movedim", lambda: x.movedim(0, 2))
    t("movedim tuple", lambda: x.movedim((0, 1), (2, 0)))
    t("moveaxis", lambda: torch.moveaxis(x, -1, 0))
    t("movedim 0-dim", lambda: s.movedim(0, 0))
    t("movedim count", lambda: x.movedim((0, 1), (2,)))
    t("movedim rep src", lambda: x.movedim((-1, 2), (0, 1)))
    t("movedim rep dst", lambda: x.movedim((0, 1), (1, 1)))
    t("movedim bad", lambda: x.movedim(0, 3))
    t("swapaxes", lambda: x.swapaxes(0, 2))
    t("flatten", lambda: x.flatten())
    t("flatten 1", lambda: x.flatten(1))
    t("flatten same", lambda: x.flatten(1, 1))
    t("flatten 0-dim", lambda: s.flatten())
    t("flatten bad", lambda: x.flatten(2, 1))
    t("flatten bad dim", lambda: s.flatten(0, 1))
    t("flatten strided", lambda: x.transpose(0, 2).flatten(1))
    t("squeeze", lambda: x[:, :1].squeeze(1))
    t("squeeze noop", lambda: x.squeeze(0))
    t("squeeze bad", lambda: x.squeeze(3))
    t("cat", lambda: torch.cat([x, x], 1))
    t("cat neg", lambda: torch.cat((x, x[:, :, :1]), -1))
    t("cat promote", lambda: torch.cat([x, torch.ones(2, 3, 4, dtype=torch.int64, device=dev)]))
    t("cat int bool", lambda: torch.cat([torch.ones(2, dtype=torch.int32, device=dev),
                                         torch.ones(2, dtype=torch.bool, device=dev)]))
    t("cat legacy empty", lambda: torch.cat([x, e]))
    t("cat empty list", lambda: torch.cat([]))
    t("cat sizes", lambda: torch.cat([x, torch.ones(2, 2, 4, device=dev)]))
    t("cat ndim", lambda: torch.cat([x, torch.ones(2, 4, device=dev)]))
    t("cat bad dim", lambda: torch.cat([x, x], 3))
    t("cat out", lambda: torch.cat([x[0], x[1]], out=torch.empty(6, 4, device=dev)))
    t("concat", lambda: torch.concat([x[0], x[1]], 1))
    t("stack", lambda: torch.stack([x[0], x[1]]))
    t("stack last", lambda: torch.stack([x[0], x[1]], -1))
    t("stack empty", lambda: torch.stack([]))
    t("stack sizes", lambda: torch.stack([x, torch.ones(2, 3, 5, device=dev)]))
    t("stack bad dim", lambda: torch.stack([x, x], 4))
    v = torch.arange(3.0, device=dev)
    m = torch.ones(2, 3, device=dev)
    t("hstack 1d", lambda: torch.hstack([v, v]))
    t("hstack 2d", lambda: torch.hstack([m, m]))
    t("hstack empty", lambda: torch.hstack([]))
    t("vstack", lambda: torch.vstack([v, m]))
    t("row_stack", lambda: torch.row_stack([v, v]))
    t("dstack", lambda: torch.dstack([v, v]))
    t("column_stack", lambda: torch.column_stack([v, m.t()]))
    t("atleast_2d", lambda: torch.atleast_2d(s))
    t("atleast_3d", lambda: torch.atleast_3d(m))
