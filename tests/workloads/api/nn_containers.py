# nn.Module's tree API (named_modules/children/parameters/buffers, state_dict and
# load_state_dict(strict=), register_buffer(persistent=), train/eval, apply,
# zero_grad, repr) and the containers; the expected output was generated with
# Debian's python3-torch (PyTorch 1.13, CPU) on identical inputs.
from collections import OrderedDict

import torch
import torch.nn as nn


def t(label, f):
    try:
        print(label, "->", f())
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.norm = nn.LayerNorm(3)
        self.register_buffer("steps", torch.zeros(1))
        self.register_buffer("cache", torch.ones(2), persistent=False)

    def forward(self, x):
        return self.norm(self.fc(x)).relu()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Block(), Block()])
        self.heads = nn.ModuleDict({"b": nn.Linear(3, 1), "a": nn.Linear(3, 2, bias=False)})
        self.scale = nn.Parameter(torch.ones(1))
        self.seq = nn.Sequential(nn.Linear(3, 4), nn.GELU(), nn.Dropout(0.1), nn.Flatten())

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.heads["a"](x) * self.scale


torch.manual_seed(0)
net = Net()
print(net)
t("named_modules", lambda: [k for k, _ in net.named_modules()])
t("children", lambda: [type(c).__name__ for c in net.children()])
t("named_children", lambda: [k for k, _ in net.named_children()])
t("named_parameters", lambda: [(k, tuple(p.shape)) for k, p in net.named_parameters()])
t("non-recursive", lambda: [k for k, _ in net.named_parameters(recurse=False)])
t("named_buffers", lambda: [k for k, _ in net.named_buffers()])
t("buffers", lambda: len(list(net.buffers())))
sd = net.state_dict()
t("state_dict", lambda: list(sd.keys()))
t("state_dict detached", lambda: (sd["scale"].requires_grad, type(sd["scale"]).__name__))
t("keep_vars", lambda: type(net.state_dict(keep_vars=True)["scale"]).__name__)
t("prefix", lambda: list(net.blocks[0].state_dict(prefix="p.").keys()))
torch.manual_seed(1)
other = Net()
t("load", lambda: other.load_state_dict(sd))
t("loaded", lambda: torch.equal(other.blocks[1].fc.weight, net.blocks[1].fc.weight))
bad = OrderedDict(sd)
del bad["scale"]
del bad["blocks.0.steps"]
bad["extra"] = torch.zeros(1)
bad["blocks.1.fc.foo"] = torch.zeros(1)
t("load strict", lambda: other.load_state_dict(bad))
t("load nonstrict", lambda: other.load_state_dict(bad, strict=False))
shape = OrderedDict(sd)
shape["scale"] = torch.ones(2)
t("load size mismatch", lambda: other.load_state_dict(shape))
t("train", lambda: (net.training, net.blocks[0].training))
net.eval()
t("eval", lambda: [m.training for m in net.modules()][:4])
net.train()
t("train again", lambda: all(m.training for m in net.modules()))
seen = []
net.apply(lambda m: seen.append(type(m).__name__))
t("apply order", lambda: seen)
x = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3]])
out = net(x).sum()
out.backward()
t("grad", lambda: net.scale.grad)
net.zero_grad()
t("zero_grad", lambda: (net.scale.grad, net.blocks[0].fc.weight.grad.abs().sum()))
net.zero_grad(set_to_none=True)
t("zero_grad none", lambda: net.scale.grad)
t("get_submodule", lambda: net.get_submodule("blocks.1.fc"))
t("get_parameter", lambda: net.get_parameter("blocks.1.fc.bias").shape)
t("get_buffer", lambda: net.get_buffer("blocks.0.steps"))
t("get_submodule bad", lambda: net.get_submodule("blocks.7"))
t("register_buffer bad", lambda: net.register_buffer("x", 3))
t("register_buffer dot", lambda: net.register_buffer("a.b", torch.ones(1)))
t("register_parameter bad", lambda: net.register_parameter("p", torch.ones(1)))
t("add_module bad", lambda: net.add_module("m", 3))
t("assign param bad", lambda: setattr(net, "scale", torch.ones(1)))
t("buffer assign", lambda: (setattr(net.blocks[0], "steps", torch.full((1,), 5.0)), net.blocks[0].steps)[1])

# Sequential
s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
t("seq len", lambda: len(s))
t("seq index", lambda: (s[0], s[-1]))
t("seq slice", lambda: s[1:])
t("seq iter", lambda: [type(m).__name__ for m in s])
t("seq out of range", lambda: s[5])
s.append(nn.Sigmoid())
t("seq append", lambda: s)
od = nn.Sequential(OrderedDict([("lin", nn.Linear(2, 2)), ("act", nn.Tanh())]))
t("seq dict", lambda: (od, od.lin))
# ModuleList
ml = nn.ModuleList([nn.ReLU(), nn.Tanh()])
ml.append(nn.Identity())
ml.extend([nn.Sigmoid()])
ml.insert(1, nn.GELU())
t("modulelist", lambda: ml)
t("modulelist index", lambda: (ml[1], ml[-1], len(ml), len(ml[1:3])))
del ml[0]
t("modulelist del", lambda: [type(m).__name__ for m in ml])
t("modulelist bad", lambda: nn.ModuleList([3]))
# ModuleDict
md = nn.ModuleDict(OrderedDict([("x", nn.ReLU()), ("y", nn.Tanh())]))
md["z"] = nn.Identity()
t("moduledict", lambda: (md, list(md.keys()), "x" in md, len(md)))
t("moduledict pop", lambda: (md.pop("x"), list(md)))
# ParameterList / ParameterDict
pl = nn.ParameterList([nn.Parameter(torch.ones(2, 3)), torch.zeros(4)])
pl.append(nn.Parameter(torch.ones(1)))
t("parameterlist", lambda: pl)
t("parameterlist items", lambda: [(type(p).__name__, tuple(p.shape), p.requires_grad) for p in pl])
t("parameterlist params", lambda: [k for k, _ in pl.named_parameters()])
pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2)), "b": torch.zeros(3)})
t("parameterdict", lambda: pd)
t("parameterdict keys", lambda: (list(pd.keys()), [k for k, _ in pd.named_parameters()], "w" in pd))
t("parameterdict get", lambda: pd["b"].shape)

# nn.init and Linear's initialization after manual_seed
torch.manual_seed(0)
lin = nn.Linear(5, 3)
t("linear init", lambda: (lin.weight.tolist(), lin.bias.tolist()))
w = torch.empty(4, 6)
torch.manual_seed(3)
t("xavier_uniform_", lambda: nn.init.xavier_uniform_(w, gain=2.0).tolist())
t("kaiming_uniform_ relu fan_out", lambda: nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu").tolist())
t("kaiming_normal_", lambda: nn.init.kaiming_normal_(w).tolist())
t("xavier_normal_", lambda: nn.init.xavier_normal_(w).tolist())
t("normal_", lambda: nn.init.normal_(w, 1.0, 0.5).tolist())
t("zeros_ ones_ constant_", lambda: (nn.init.zeros_(w).sum().item(), nn.init.ones_(w).sum().item(),
                                     nn.init.constant_(w, 0.25).sum().item()))
t("conv-shaped fan", lambda: nn.init._calculate_fan_in_and_fan_out(torch.empty(8, 4, 3, 3)))
t("gain", lambda: (nn.init.calculate_gain("tanh"), nn.init.calculate_gain("leaky_relu", 0.2)))
t("fan 1d", lambda: nn.init.xavier_uniform_(torch.empty(3)))
t("bad mode", lambda: nn.init.kaiming_uniform_(w, mode="fan"))

# attribute stores: a value moves between parameters, buffers and modules
m = nn.Module()
m.register_buffer("a", torch.ones(1))
m.a = nn.Parameter(torch.ones(2))
t("buffer to param", lambda: ([k for k, _ in m.named_parameters()], [k for k, _ in m.named_buffers()]))
t("param to tensor", lambda: setattr(m, "a", torch.ones(1)))
m.a = None
m.register_buffer("b", torch.ones(1), persistent=False)
m.b = nn.ReLU()
t("buffer to module", lambda: (list(m.state_dict()), [k for k, _ in m.named_children()]))
t("module to tensor", lambda: setattr(m, "b", torch.ones(1)))
m.b = None
t("module to None", lambda: (m.b, list(m._modules)))
del m.b
t("deleted", lambda: (hasattr(m, "b"), list(m._parameters)))
t("train non-bool", lambda: m.train("yes"))
t("repr empty", lambda: (nn.Module(), nn.Sequential(), nn.ModuleList()))

# Embedding: PyTorch's init after manual_seed, padding_idx, forward
torch.manual_seed(0)
emb = nn.Embedding(5, 3, padding_idx=1)
t("embedding", lambda: (emb, [[round(v, 4) for v in row] for row in emb.weight.tolist()]))
t("embedding forward", lambda: emb(torch.tensor([[0, 1], [4, 4]])).shape)
t("embedding neg padding", lambda: nn.Embedding(4, 2, padding_idx=-1).padding_idx)
torch.manual_seed(5)
t("trunc_normal_", lambda: [round(v, 5) for v in nn.init.trunc_normal_(torch.empty(8), 0.5, 0.3, 0.0, 1.0).tolist()])

# forward hooks and pre-hooks: called in order, may replace inputs or output
calls = []
lin2 = nn.Linear(2, 2)
h1 = lin2.register_forward_pre_hook(lambda m, inp: calls.append(("pre", type(m).__name__, len(inp))))
h2 = lin2.register_forward_pre_hook(lambda m, inp: inp[0] * 0)
h3 = lin2.register_forward_hook(lambda m, inp, out: calls.append(("post", inp[0].sum().item(), tuple(out.shape))))
h4 = lin2.register_forward_hook(lambda m, inp, out: out + 100)
res = lin2(torch.ones(3, 2))
t("hooks", lambda: (calls, torch.equal(res, lin2.bias.detach().expand(3, 2) + 100)))
for h in (h2, h4, h4):
    h.remove()
calls.clear()
t("hooks removed", lambda: (lin2(torch.ones(1, 2)).shape, calls))
with lin2.register_forward_hook(lambda m, i, o: calls.append("ctx")):
    lin2(torch.ones(1, 2))
lin2(torch.ones(1, 2))
t("handle as context", lambda: calls)
pre = nn.Embedding.from_pretrained(torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), padding_idx=0)
t("from_pretrained", lambda: (pre, pre.weight.requires_grad, pre(torch.tensor([2, 0])).tolist(),
                              nn.Embedding.from_pretrained(torch.ones(2, 2), freeze=False).weight.requires_grad))
