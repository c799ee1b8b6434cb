# The safe forms of "Stream semantics of backward passes" in PyTorch's
# CUDA semantics note: the backward of each op runs on the stream its
# forward ran on, and backward() syncs with the caller's current stream,
# so using the gradients in the same stream context as backward(), after
# a wait_stream, or with the initial gradient made in backward()'s
# context (or made elsewhere, waited for and record_stream'ed) is safe.
# Needs CUDA; the expected values are the gradients' closed forms
# (d/dw sum(w * 3) = 3, d/dw sum(w * w) = 2w), which torch 1.13 on the CPU
# gives for the same computation.
import torch

s = torch.cuda.Stream()
w = torch.ones(100, device="cuda", requires_grad=True)
x = torch.full((100,), 2.0, device="cuda", requires_grad=True)


def fresh():
    w.grad = None
    x.grad = None


# Safe: grads are used in the same stream context as backward()
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    loss = (w * 3).sum()
    loss.backward()
    print("same context", w.grad.sum().item())
torch.cuda.current_stream().wait_stream(s)
fresh()

# Safe, with synchronization: the forward on s, grads used on the default
# stream after it waits for s
with torch.cuda.stream(s):
    loss = (w * 3).sum() + (x * x).sum()
    loss.backward()
torch.cuda.current_stream().wait_stream(s)
print("after wait_stream", w.grad.sum().item(), x.grad.sum().item())
fresh()

# Safe: populating the initial gradient and invoking backward are in the
# same stream context
with torch.cuda.stream(s):
    loss = (x * x).sum()
    loss.backward(gradient=torch.ones_like(loss))
torch.cuda.current_stream().wait_stream(s)
print("initial grad in context", x.grad.sum().item())
fresh()

# Safe, with synchronization: the initial gradient made on the default
# stream, which s waits for; record_stream tells the allocator s uses it
loss = (x * x).sum()
initial_grad = torch.ones_like(loss)
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    initial_grad.record_stream(s)
    loss.backward(gradient=initial_grad)
torch.cuda.current_stream().wait_stream(s)
print("initial grad waited for", x.grad.sum().item())
fresh()

# The forward on two streams: each backward node runs on its forward's
# stream, and the engine makes the consumer wait
side = torch.cuda.Stream()
side.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(side):
    a = w * 3
torch.cuda.current_stream().wait_stream(side)
loss = (a * x).sum()
loss.backward()
print("two streams", w.grad.sum().item(), x.grad.sum().item())
