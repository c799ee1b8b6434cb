# torch.compile runs eagerly (the "eager" backend's meaning: the same
# object back, the same results), saying so once on stderr; TorchScript's
# scripting and tracing are not modeled and say so; its decorators keep
# their eager meaning.
import torch

from checks import check

m = torch.nn.Linear(3, 2)
cm = torch.compile(m)
x = torch.ones(1, 3)
print(cm is m, torch.equal(cm(x), m(x)))


@torch.compile
def f(a):
    return a.sin() + 1


@torch.compile(mode="max-autotune", fullgraph=True)
def g(a):
    return a * 2


print(f(torch.zeros(2)).tolist(), g(torch.ones(2)).tolist(), f.__name__)
print(torch.compile(m, backend="eager", dynamic=True) is m, torch.compile(m, disable=True) is m)
print(m.compile(), m(x).shape)
check(lambda: torch.compile(m, mode="default", options={"a": 1}))

check(lambda: torch.jit.script(m))
check(lambda: torch.jit.trace(m, x))
check(lambda: torch.jit.load("model.pt"))
check(lambda: torch.jit.nonexistent_thing)
print(isinstance(m, torch.jit.ScriptModule), torch.jit.is_scripting(), torch.jit.is_tracing())


class Net(torch.nn.Module):
    @torch.jit.ignore
    def helper(self, a):
        return a + 1

    @torch.jit.unused
    def other(self, a):
        return a - 1

    @torch.jit.export
    def forward(self, a):
        return self.helper(torch.jit.annotate(torch.Tensor, a))


print(Net()(torch.zeros(2)).tolist(), Net().other(1))

# torch.compiler, as an eager run answers it
print(torch.compiler.is_compiling(), torch.compiler.disable(f) is f, torch.compiler.disable(recursive=False)(g) is g)
check(lambda: torch.compiler.list_backends())
