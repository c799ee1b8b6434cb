# torch.cuda's RNG functions (state round trips, seeds per device), comm
# collectives (return types, placement, errors) and nvtx depths.
import torch

C = torch.cuda


def show(label, f):
    try:
        print(label, "->", repr(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


show("manual_seed(3)", lambda: C.manual_seed(3))
show("initial_seed", C.initial_seed)
C.set_device(1)
show("initial_seed on cuda:1 (manual_seed seeds only the current device)", C.initial_seed)
show("manual_seed_all(5)", lambda: C.manual_seed_all(5))
show("initial_seed on cuda:1", C.initial_seed)
C.set_device(0)
show("seed()", C.seed)
show("seed_all()", C.seed_all)
s0 = C.initial_seed()
C.set_device(3)
print("seed_all gives every device one seed:", C.initial_seed() == s0)
C.set_device(0)
show("torch.manual_seed(2) type", lambda: type(torch.manual_seed(2)).__name__)
print("cuda initial_seed after torch.manual_seed(2):", C.initial_seed())
st = C.get_rng_state()
print(st.dtype, st.shape, st.device, st.tolist())
for spelling in ("cuda", 1, "cuda:2", torch.device("cuda", 3)):
    print("get_rng_state(%r):" % (spelling,), C.get_rng_state(spelling).shape)
states = C.get_rng_state_all()
print(type(states).__name__, len(states))
a = torch.rand(4, device="cuda")
an = torch.randn(3, device="cuda:1")
C.set_rng_state(st)
C.set_rng_state_all(states)
print("replay rand:", torch.equal(a, torch.rand(4, device="cuda")))
print("replay randn on cuda:1:", torch.equal(an, torch.randn(3, device="cuda:1")))
C.manual_seed(7)
u1 = torch.empty(5, device="cuda").uniform_()
C.manual_seed(7)
print("manual_seed repeats uniform_:", torch.equal(u1, torch.empty(5, device="cuda").uniform_()))
show("set_rng_state(3 bytes)", lambda: C.set_rng_state(torch.zeros(3, dtype=torch.uint8)))
show("set_rng_state(float tensor)", lambda: C.set_rng_state(torch.zeros(16)))

src = torch.arange(6.0, device="cuda")
b = C.comm.broadcast(src, [0, 1, 2])
print("broadcast:", type(b).__name__, [str(t.device) for t in b], b[2].tolist())
show("broadcast(t)", lambda: C.comm.broadcast(src))
bc = C.comm.broadcast_coalesced([src, src[:2]], [0, 3])
print("broadcast_coalesced:", type(bc).__name__, type(bc[0]).__name__, [[str(t.device) for t in g] for g in bc])
sc = C.comm.scatter(src, [0, 1])
print("scatter:", type(sc).__name__, [(str(t.device), t.tolist()) for t in sc])
print("scatter chunk_sizes:", [t.tolist() for t in C.comm.scatter(src, [1, 2], chunk_sizes=[1, 5])])
print("gather to cpu:", C.comm.gather([sc[0], sc[1]], destination=-1))
print("gather to cuda:1:", C.comm.gather(list(sc), dim=0, destination=1))
print("reduce_add:", C.comm.reduce_add([b[0], b[1], b[2]], destination=2))
show("reduce_add size mismatch", lambda: C.comm.reduce_add([b[0], sc[1]]))

print("nvtx:", C.nvtx.range_push("a"), C.nvtx.range_push("b"), C.nvtx.range_pop(), C.nvtx.range_pop(),
      C.nvtx.range_pop())
print("mark:", C.nvtx.mark("here"))
with C.nvtx.range("step {}", 1):
    print("inside range:", C.nvtx.range_push("inner"), C.nvtx.range_pop())
