# Read back by test-workload-trace: the line numbers below are asserted.
import torch
q = torch.randn(2, 3, 8, 4, device="cuda")
out = torch.nn.functional.scaled_dot_product_attention(q, q, q, is_causal=True)  # line 4
h = torch.nn.LSTM(4, 6).cuda()(torch.randn(3, 2, 4, device="cuda"))  # line 5
torch.cuda.synchronize()
