# Used by test-nvtx-record: NVTX ranges marked through torch.cuda.nvtx must
# reach the real NVTX too, so an outside tool (Nsight, `tensorscope-cli
# record`) sees them.
import torch

torch.cuda.nvtx.range_push("outer")
torch.cuda.nvtx.range_push("inner")
torch.cuda.nvtx.mark("tick")
torch.cuda.nvtx.range_pop()
torch.cuda.nvtx.range_pop()
with torch.cuda.nvtx.range("scoped"):
    pass
