# In-place shape ops (unsqueeze_, squeeze_, t_, transpose_) keep the storage
# and change the tensor's own geometry. The expected output is what
# Debian's python3-torch 1.13 prints for this script.
import torch
x = torch.arange(6.).reshape(2, 3)
y = x.view(6)
x.unsqueeze_(0); print(x.shape, x.stride(), y.data_ptr() == x.data_ptr())
x.squeeze_(); print(x.shape)
x.t_(); print(x.shape, x.stride(), x.tolist())
x.transpose_(0, 1); print(x.shape, x.is_contiguous())
z = torch.ones(2, 1, 3); z.squeeze_(1); print(z.shape)
w = torch.ones(2, requires_grad=True)
with torch.no_grad():
    w.unsqueeze_(0)
print(w.shape, w.requires_grad)
