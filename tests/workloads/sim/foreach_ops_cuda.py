# api/foreach_ops on CUDA tensors: the same values as PyTorch 1.13's on CPU
# (its .expected is that workload's), through multi-tensor launches
import os
import runpy

runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "api", "foreach_ops.py"),
               init_globals={"DEVICE": "cuda"})
