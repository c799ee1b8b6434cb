# The CPU generator is PyTorch's mt19937 one: a seed gives PyTorch's
# numbers for rand/randn/uniform_/normal_ in every floating dtype, the
# state is PyTorch's 5056 bytes, and torch.Generator objects draw apart.
# The .expected file was printed by python3-torch 1.13.
import torch


def show(label, f):
    try:
        print(label, "->", repr(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


for seed in (0, 1, 42, 2**32 + 5):
    for dt in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        torch.manual_seed(seed)
        print(seed, dt, "rand", torch.rand(5, dtype=dt).tolist())
        print(seed, dt, "randn", torch.randn(7, dtype=dt).tolist())
        print(seed, dt, "randn 17", torch.randn(17, dtype=dt).tolist()[-3:])
        print(seed, dt, "uniform_", torch.empty(3, dtype=dt).uniform_(-2.5, 4.0).tolist())
        print(seed, dt, "normal_ 20", torch.empty(20, dtype=dt).normal_(1.5, 0.25).tolist()[:3])

torch.manual_seed(3)
print("transposed normal_", torch.empty(3, 5).t().normal_().tolist()[0])
print("initial_seed", torch.initial_seed())
st = torch.get_rng_state()
print("state", len(st), st.dtype, st[:24].tolist())
a = torch.randn(3).tolist()
torch.set_rng_state(st)
print("round trip", torch.randn(3).tolist() == a)
torch.randn(1)
st2 = torch.get_rng_state()
print("cached normal in state", st2[5040:5044].tolist(), "round trip",
      (torch.set_rng_state(st2), torch.randn(2).tolist())[1])
show("set_rng_state(10 bytes)", lambda: torch.set_rng_state(torch.zeros(10, dtype=torch.uint8)))
show("set_rng_state(float)", lambda: torch.set_rng_state(torch.zeros(5056)))
show("set_rng_state(zeros)", lambda: torch.set_rng_state(torch.zeros(5056, dtype=torch.uint8)))
print("manual_seed returns default_generator", torch.manual_seed(9) is torch.default_generator)
g = torch.Generator()
print("Generator initial_seed", g.initial_seed(), g.device)
g.manual_seed(11)
print("generator= rand", torch.rand(3, generator=g).tolist())
print("default stream untouched", torch.rand(2).tolist())
gs = g.get_state()
print("generator= randn", torch.randn(2, generator=g, dtype=torch.float64).tolist())
g.set_state(gs)
print("after set_state", torch.randn(2, generator=g, dtype=torch.float64).tolist())
s = torch.seed()
print("seed() is initial_seed", s == torch.initial_seed())
