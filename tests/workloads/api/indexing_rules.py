# PyTorch's indexing rules on CPU and CUDA tensors: basic indices, bool
# masks, integer tensors and lists, several advanced indices, assignment.
# The expected output is PyTorch 1.13's (CPU) on the same inputs: the
# second pass runs on CUDA here and again on the CPU under PyTorch.
# Two lines follow PyTorch 2.x, which takes int32 index tensors (1.13
# refuses them, so the oracle runs that line with a long index) and says
# so in the float index's message ("long, int, byte or bool").
import torch

int_index = torch.int32 if not torch.__version__.startswith("1.") else torch.int64

devices = ["cpu", "cuda" if torch.cuda.is_available() else "cpu"]


def show(label, t):
    print(label, tuple(t.shape), str(t.dtype), t.tolist())


def attempt(label, f):
    try:
        show(label, f())
    except Exception as e:
        print(label, type(e).__name__, e)


for dev in devices:
    t = torch.arange(24., device=dev).reshape(2, 3, 4)
    # basic: ints, slices with steps, None, Ellipsis
    show("int", t[1])
    show("neg int", t[-1, -2])
    show("step", t[:, ::2, 1::2])
    show("none", t[None, 0, :, None, 1])
    show("ellipsis", t[..., 2])
    show("ellipsis none", t[None, ..., 1])
    show("empty slice", t[:, 3:, :])
    # long and int tensors, lists
    show("list", t[[1, 0]])
    show("long", t[torch.tensor([[0, 1], [1, 1]], device=dev)])
    show("int32", t[:, torch.tensor([2, 0], dtype=int_index, device=dev)])
    show("negative", t[0, [-1, -3]])
    show("pairs", t[[0, 1], [1, 2]])
    show("triple", t[[0, 1], [2, 0], [3, 1]])
    show("broadcast", t[torch.tensor([[0], [1]], device=dev), [0, 2]])
    show("adjacent", t[:, [0, 2], [1, 3]])
    show("separated", t[[0, 1], :, [1, 3]])
    show("separated by int", t[[0, 1], 1, [1, 3]])
    show("empty list", t[[]])
    show("empty long", t[:, torch.tensor([], dtype=torch.long, device=dev)])
    # bool masks
    show("mask", t[t > 20])
    show("mask 2d", t[:, t[0] > 6])
    show("mask 1d", t[torch.tensor([False, True], device=dev)])
    show("mask none", t[t[:, 0, 0] < 1, None, 2])
    show("mask and list", t[torch.tensor([True, True], device=dev), [0, 2]])
    show("bool true", t[True].flatten()[:3])
    show("bool false", t[False])
    show("empty mask", t[t > 100])
    v = t[torch.tensor(1, device=dev)]
    v[0, 0] = 100.  # a 0-dim integer tensor selects a view
    show("0-dim index", t[1, 0])
    v[0, 0] = 12.
    show("0-dim and list", t[torch.tensor(1, device=dev), [0, 2], 1])
    z = torch.tensor(5., device=dev)
    print("0-dim self", tuple(z[None].shape), tuple(z[...].shape), tuple(z[True].shape), tuple(z[False].shape))
    e0 = torch.zeros(0, 3, device=dev)
    print("empty self", tuple(e0[[]].shape), tuple(e0[torch.zeros(0, dtype=torch.bool, device=dev)].shape),
          tuple(e0[:, [1, 2]].shape), tuple(e0[e0 > 0].shape))
    e0.index_put_((torch.tensor([], dtype=torch.long, device=dev),), torch.tensor(1., device=dev))
    e0[e0 > 0] = 3.
    print("empty put", tuple(e0.shape))
    # zero strides: an expanded tensor indexed, and an expanded index
    e = torch.tensor([1., 2., 3.], device=dev).expand(2, 3)
    show("expanded", e[[1, 0], [2, 2]])
    show("expanded index", t[0, torch.tensor([2], device=dev).expand(3)])
    # assignment
    a = torch.zeros(3, 4, device=dev)
    a[a == 0] = 1
    a[[0, 2], [1, 3]] = torch.tensor([10., 20.], device=dev)
    a[1, [0, 3]] = 5
    a[:, [2]] = torch.tensor([[7.], [8.], [9.]], device=dev)
    a[[0, 1], :, None] = torch.tensor([-1., -2., -3., -4.], device=dev).reshape(4, 1)
    a[a > 8] = torch.tensor([0.5], device=dev).expand(2)
    a[a[:, 0] > 0] += 1
    a[[0, 0]] += 1  # one write per index: the increment lands once
    show("assigned", a)
    m = torch.arange(6, device=dev)
    m[m > 3] = 0
    m[torch.tensor([0, 0, 1], device=dev)] = torch.tensor([7, 8, 9], device=dev)
    show("int assigned", m)
    acc = torch.zeros(3, device=dev).index_put_((torch.tensor([0, 0, 2], device=dev),),
                                                torch.ones(3, device=dev), accumulate=True)
    show("accumulate", acc)
    acc2 = torch.zeros(2, 2, dtype=torch.int64, device=dev)
    acc2.index_put_((torch.tensor([1, 1], device=dev), torch.tensor([0, 0], device=dev)),
                    torch.tensor(3, device=dev), accumulate=True)
    show("accumulate 2d", acc2)
    show("index_put", torch.zeros(4, device=dev).index_put((torch.tensor([3], device=dev),),
                                                          torch.tensor(2., device=dev)))
    # the masked ops, take, put_, nonzero
    x = torch.arange(6., device=dev).reshape(2, 3)
    row = torch.tensor([True, False, True], device=dev)
    show("masked_fill", x.masked_fill(row, -1.))
    show("masked_fill tensor", x.masked_fill(x > 3, torch.tensor(9.)))
    show("masked_fill broadcast", torch.zeros(3, device=dev).masked_fill(torch.tensor([[True], [False]], device=dev), 2))
    show("masked_select", x.masked_select(row))
    show("masked_select fn", torch.masked_select(x, x > 2))
    show("masked_scatter", x.masked_scatter(x > 2, torch.tensor([10., 20., 30., 40.], device=dev)))
    show("take", x.take(torch.tensor([[5, 0], [-1, 2]], device=dev)))
    y = torch.zeros(2, 3, device=dev)
    y.put_(torch.tensor([1, 4, 1], device=dev), torch.tensor([1., 2., 3.], device=dev), accumulate=True)
    show("put_", y)
    show("nonzero", (x > 1).nonzero())
    show("nonzero fn", torch.nonzero(torch.tensor([0, 3, 0, 4], device=dev)))
    print("nonzero tuple", [i.tolist() for i in (x > 3).nonzero(as_tuple=True)])
    show("nonzero empty", torch.zeros(2, 2, device=dev).nonzero())
    x.masked_fill_(x < 2, 100)
    show("masked_fill_", x)
    # errors
    s = torch.arange(3., device=dev)
    attempt("oob int", lambda: s[5])
    attempt("too many", lambda: x[0, 0, 0])
    attempt("mask shape", lambda: x[torch.tensor([True, False, True], device=dev)])
    attempt("float index", lambda: x[torch.tensor([1.], device=dev)])
    attempt("broadcast", lambda: x[[0, 1], [0, 1, 2]])
    attempt("value shape", lambda: x.index_put_((torch.tensor([0, 1], device=dev),), torch.ones(3, device=dev)))
    attempt("masked_fill dims", lambda: x.masked_fill(x > 1, torch.ones(2)))
    attempt("masked_fill shape", lambda: x.masked_fill(torch.ones(2, dtype=torch.bool, device=dev), 1))
    attempt("masked_fill_ shape", lambda: x.masked_fill_(torch.ones(2, dtype=torch.bool, device=dev), 1))
    attempt("masked_fill_ dims", lambda: x.masked_fill_(torch.ones(3, 1, 1, dtype=torch.bool, device=dev), 1))
    attempt("masked_scatter_ shape", lambda: x.masked_scatter_(torch.ones(2, dtype=torch.bool, device=dev), x))
    attempt("masked_scatter few", lambda: x.masked_scatter(x > 1, torch.ones(2, device=dev)))
    attempt("put_ count", lambda: y.put_(torch.tensor([1, 2], device=dev), torch.tensor([1.], device=dev)))
    attempt("zero-dim int", lambda: torch.tensor(1.)[0])
    attempt("0-dim oob", lambda: x[torch.tensor(5, device=dev)])
    attempt("negative step", lambda: x[::-1])
    attempt("take oob", lambda: x.cpu().take(torch.tensor([20])))
    attempt("put_ oob", lambda: x.cpu().put_(torch.tensor([-7]), torch.tensor([1.])))
    attempt("index_put_ oob", lambda: x.cpu().index_put_((torch.tensor([0]), torch.tensor([3])), torch.tensor(1.)))
    d64 = torch.tensor([1.], dtype=torch.float64, device=dev)
    attempt("index_put_ dtype", lambda: y.index_put_((torch.tensor([0], device=dev),), d64))
    attempt("index_put_ 0-dim dtype", lambda: y.index_put_((y > 0,), d64[0]))
    attempt("index_put_ indices", lambda: y.index_put_(torch.tensor([0], device=dev), d64))
    attempt("put_ dtype", lambda: y.put_(torch.tensor([0], device=dev), d64))
    attempt("take int32", lambda: y.take(torch.tensor([0], dtype=torch.int32, device=dev)))
    attempt("setitem dtype", lambda: y.__setitem__([0], d64))
    y[y > 1] = d64[0]  # as masked_fill_, which converts
    y[[0, 1]] = 2  # a number takes y's dtype
    show("converted", y)
