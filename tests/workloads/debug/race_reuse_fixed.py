# race_reuse.py fixed: x.record_stream(s) before the free makes the
# caching allocator wait for s's work before it hands the block out again.
import os
import runpy
import sys

sys.argv[1:] = ["fixed"]
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "race_reuse.py"), run_name="__main__")
