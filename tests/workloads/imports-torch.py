# Used by test-cli-run: `import torch` must find Tensorscope's module first.
import torch
print(torch.__version__.endswith("+tensorscope"))
