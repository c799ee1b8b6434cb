# Grad mode and inference mode as state: the context managers, the
# decorators (of functions and generators), set_grad_enabled as a call,
# thread-locality, and inference tensors. The expected output is what
# Debian's python3-torch 1.13 prints for this script (`python3 grad_mode.py`).
import threading

import torch

print("top", torch.is_grad_enabled(), torch.is_inference_mode_enabled())
with torch.no_grad():
    print("no_grad", torch.is_grad_enabled())
    with torch.enable_grad():
        print("enable_grad inside no_grad", torch.is_grad_enabled())
    print("back in no_grad", torch.is_grad_enabled())
    seen = []
    t = threading.Thread(target=lambda: seen.append(torch.is_grad_enabled()))
    t.start()
    t.join()
    print("a new thread starts with grad on", seen)
print("after no_grad", torch.is_grad_enabled())

torch.set_grad_enabled(False)
print("set_grad_enabled(False) as a call", torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    print("set_grad_enabled(False) as a context", torch.is_grad_enabled())
print("after it", torch.is_grad_enabled())
try:
    with torch.no_grad():
        raise ValueError("inside")
except ValueError:
    pass
print("after an exception in no_grad", torch.is_grad_enabled())


@torch.no_grad()
def decorated():
    return torch.is_grad_enabled()


print("decorated", decorated(), decorated.__name__, torch.is_grad_enabled())


@torch.no_grad()
def gen():
    yield torch.is_grad_enabled()
    yield torch.is_grad_enabled()


it = gen()
print("generator", next(it), torch.is_grad_enabled(), next(it))

with torch.inference_mode():
    x = torch.ones(2)
    print("inference_mode", torch.is_grad_enabled(), torch.is_inference_mode_enabled(), x.is_inference())
    with torch.inference_mode(False):
        print("inference_mode(False) inside", torch.is_grad_enabled(), torch.is_inference_mode_enabled())
    with torch.enable_grad():
        print("enable_grad inside inference_mode", torch.is_grad_enabled(), torch.is_inference_mode_enabled())
print("after inference_mode", torch.is_grad_enabled(), torch.is_inference_mode_enabled(),
      x.is_inference(), torch.ones(2).is_inference(), (x + 1).is_inference())


@torch.inference_mode()
def infer():
    return torch.is_inference_mode_enabled(), torch.zeros(1).is_inference()


print("decorated by inference_mode", infer())
for bad in (lambda: torch.set_grad_enabled("yes"),):
    try:
        bad()
    except TypeError as e:
        print("TypeError:", e)

# Inference-ness belongs to the memory: views of an inference tensor are
# inference tensors wherever they are made, views of a normal tensor made in
# inference mode are not, and new results outside it are normal.
normal = torch.arange(6.0).reshape(2, 3)
with torch.inference_mode():
    inf = torch.zeros(2, 3)
    print("in inference mode: view of a normal tensor", normal[0].is_inference(), normal.t().is_inference(),
          "new", (normal * 2).is_inference())
print("outside: views of an inference tensor", inf[1].is_inference(), inf.view(6).is_inference(),
      inf.t().is_inference(), "new from it", (inf + 1).is_inference(), inf.clone().is_inference())
print("torch.is_inference", torch.is_inference(inf), torch.is_inference(normal))

# requires_grad on an inference tensor: inside inference mode only
with torch.inference_mode():
    w = torch.ones(2)
    print("requires_grad inside", torch.ones(2, requires_grad=True).requires_grad,
          torch.ones(2).requires_grad_().requires_grad)
for bad in (lambda: w.requires_grad_(), lambda: setattr(w, "requires_grad", True)):
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)
print("requires_grad_(False) outside", w.requires_grad_(False).requires_grad)
