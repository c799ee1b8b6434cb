# nn.Module, Linear, Sequential, Parameter and DataLoader on the CPU; expectations
# generated with Debian's python3-torch (PyTorch 1.13) and identical under Tensorscope.
import torch
def t(label, f):
    try:
        r = f()
        print(label, "->", repr(r))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)
torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
t("linear", lambda: lin)
t("linear nobias", lambda: torch.nn.Linear(3, 2, bias=False))
t("weight shape", lambda: (lin.weight.shape, lin.bias.shape, type(lin.weight).__name__, lin.weight.requires_grad))
t("params", lambda: [p.shape for p in lin.parameters()])
t("named params", lambda: [n for n, _ in lin.named_parameters()])
t("forward shape", lambda: lin(torch.ones(4, 3)).shape)
t("forward bad", lambda: lin(torch.ones(4, 2)))
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 8)
        self.fc2 = torch.nn.Linear(8, 2)
    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))
n = Net()
t("net", lambda: n)
t("children", lambda: [type(c).__name__ for c in n.children()])
t("modules", lambda: [type(c).__name__ for c in n.modules()])
t("named_modules", lambda: [k for k, _ in n.named_modules()])
t("state_dict keys", lambda: list(n.state_dict().keys()))
t("train", lambda: (n.training, n.eval().training, n.train().training))
t("to returns self", lambda: n.to('cpu') is n)
t("out", lambda: n(torch.zeros(1, 4)).shape)
t("param repr", lambda: torch.nn.Parameter(torch.tensor([1., 2.])))
t("param isinstance", lambda: isinstance(torch.nn.Parameter(torch.ones(1)), torch.Tensor))
t("zero_grad", lambda: n.zero_grad())
t("seq", lambda: torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU()))
t("getattr missing", lambda: n.foo)
ds = torch.utils.data.TensorDataset(torch.arange(10.).reshape(5, 2), torch.arange(5)) if hasattr(torch.utils.data, 'TensorDataset') else None
t("tensordataset", lambda: (len(ds), ds[1]))
dl = torch.utils.data.DataLoader(ds, batch_size=2)
t("dl len", lambda: len(dl))
t("dl batches", lambda: [(x.shape, y.tolist()) for x, y in dl])
t("dl list ds", lambda: list(torch.utils.data.DataLoader([1, 2, 3], batch_size=2)))
t("dl dict", lambda: list(torch.utils.data.DataLoader([{'a': 1.}, {'a': 2.}], batch_size=2)))
t("dl droplast", lambda: len(torch.utils.data.DataLoader(ds, batch_size=2, drop_last=True)))
