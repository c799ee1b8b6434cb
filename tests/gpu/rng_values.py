# Random values on a CUDA device after torch.manual_seed: run under real
# PyTorch on a GPU and under tensorscope-cli run (simulated CUDA), and
# compare the lines. The simulator claims PyTorch's values for uniform_ /
# normal_ (Philox4x32-10, same offsets and element mapping); randint,
# random_, randperm, bernoulli and multinomial are reproducible but not
# claimed (docs/simulation-model.md).
import torch


def show(name, t):
    print(name, [round(v, 5) if isinstance(v, float) else v for v in t.reshape(-1)[:6].cpu().tolist()])


torch.manual_seed(0)
show("rand 4", torch.rand(4, device="cuda"))
show("rand 5 after", torch.rand(5, device="cuda"))
show("randn 6", torch.randn(6, device="cuda"))
show("randn 1000", torch.randn(1000, device="cuda")[-6:])
show("randn f64", torch.randn(6, device="cuda", dtype=torch.float64))
show("randn f16", torch.randn(6, device="cuda", dtype=torch.float16).float())
show("uniform_", torch.empty(6, device="cuda").uniform_(-2, 3))
show("normal_", torch.empty(6, device="cuda").normal_(1, 0.5))
show("randn 2x3 strided", torch.randn(3, 2, device="cuda").t())
torch.manual_seed(1)
show("rand 100000 tail", torch.rand(100000, device="cuda")[-6:])
show("randint", torch.randint(0, 10, (6,), device="cuda"))
show("bernoulli_", torch.empty(6, device="cuda").bernoulli_(0.5))
show("randperm", torch.randperm(6, device="cuda"))
show("multinomial", torch.multinomial(torch.ones(6, device="cuda"), 3))
show("dropout", torch.nn.functional.dropout(torch.ones(6, device="cuda"), 0.5))
g = torch.Generator(device="cuda")
g.manual_seed(42)
show("generator rand", torch.rand(4, device="cuda", generator=g))
