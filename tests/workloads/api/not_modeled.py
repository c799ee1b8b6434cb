# What a script meets when it uses a part of PyTorch that Tensorscope does
# not model yet: an error naming it (Tensorscope's own text; PyTorch has
# these attributes), an AttributeError so that hasattr() is False, and a
# NotImplementedError too. Typos of dunders stay plain AttributeErrors.
import torch
import torch.nn as nn


def check(fn):
    try:
        fn()
    except Exception as err:
        print(type(err).__name__ + ":", err, isinstance(err, AttributeError),
              isinstance(err, NotImplementedError))
    else:
        print("no error")


check(lambda: torch.stft)
check(lambda: torch.optim.LBFGS)
check(lambda: torch.autograd.gradcheck)
check(lambda: nn.CTCLoss)
check(lambda: nn.functional.ctc_loss)
check(lambda: torch.cuda.jiterator)
check(lambda: torch.backends.cudnn.benchmark_limit)
check(lambda: torch.ones(2, 2).matrix_exp())
check(lambda: torch.Tensor.stft)
check(lambda: torch.autograd.forward_ad.dual_level)
check(lambda: torch.linalg.matrix_exp)
print(hasattr(torch, "stft"), hasattr(torch.ones(1), "matrix_exp"), hasattr(torch, "ones"),
      hasattr(torch.ones(1), "is_inference"))
print(getattr(torch, "vmap", "default"))
check(lambda: torch.__wrapped__)
check(lambda: torch.ones(1).__foo__)

try:
    import torch.nn.utils.prune  # noqa: F401
except ImportError as err:
    print(type(err).__name__ + ":", err)
try:
    from torch.optim import LBFGS  # noqa: F401
except ImportError as err:
    print(type(err).__name__ + ":", err)
try:
    import torch._dynamo  # noqa: F401
except ImportError as err:
    print(type(err).__name__ + ":", err)
try:
    torch.optim.Rprop([], lr=1e-3)
except NotImplementedError as err:
    print("caught as NotImplementedError:", err)

# Writing through a mask or an index tensor writes in place (index_put_,
# which used to say it was not modeled), as basic indexing does; the
# printed tensor is PyTorch 1.13's.
m = torch.arange(6.0)
check(lambda: m.__setitem__(m > 3, -1.0))
check(lambda: m.__setitem__(([0, 2],), torch.tensor([1.0, 2.0])))
m[1:3] = 7
print(m)

# torch.cuda.set_sync_debug_mode: "default" is what Tensorscope does; the
# others are not modeled (the bad name's message is PyTorch's).
check(lambda: torch.cuda.set_sync_debug_mode("default"))
check(lambda: torch.cuda.set_sync_debug_mode("warn"))
check(lambda: torch.cuda.set_sync_debug_mode("loud"))
print(torch.cuda.get_sync_debug_mode())

# An nn.Module method PyTorch has and Tensorscope lacks is not modeled; a
# name that is the script's own stays PyTorch's plain AttributeError.
net = nn.Linear(2, 2)
check(lambda: net.share_memory())
check(lambda: net.wieght)
print(hasattr(net, "share_memory"), hasattr(net, "weight"))

# An op's out= that is not bound is not ignored: it says it is not modeled.
o = torch.empty(3)
check(lambda: torch.normal(0.0, 1.0, (3,), out=o))
check(lambda: torch.bernoulli(o, out=torch.empty(3)))
