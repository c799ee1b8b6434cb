# The unsafe forms of "Stream semantics of backward passes" in PyTorch's
# CUDA semantics note, under the CUDA sanitizer (this case's .env sets
# TORCH_CUDA_SANITIZER=1): using the gradients on another stream than
# backward()'s without a wait is a data race CSAN reports, and the same
# use after wait_stream is not. Simulator only: the report comes from the
# simulated streams' order. Expected output written from the note and
# PyTorch's CSAN (torch 1.13 on the CPU cannot run it).
import torch

s = torch.cuda.Stream()
w = torch.ones(100, device="cuda", requires_grad=True)


def use_grads():
    try:
        print("use", w.grad.sum().item())
    except Exception as e:
        print(type(e).__name__, e)


# Unsafe: backward() on s, its gradients read on the default stream
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    loss = (w * 3).sum()
    loss.backward()
use_grads()
w.grad = None

# Safe, with synchronization
s.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(s):
    loss = (w * 3).sum()
    loss.backward()
torch.cuda.current_stream().wait_stream(s)
use_grads()
