# Modules on CUDA devices, DataParallel over the four devices, DataLoader with
# pin_memory=True and the pin_memory helper.
import torch
def t(label, f):
    try:
        r = f()
        print(label, "->", repr(r))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)
torch.manual_seed(0)
lin = torch.nn.Linear(3, 2)
t("cuda()", lambda: (lin.cuda() is lin, lin.weight.device, lin.bias.device))
t("cuda(1)", lambda: lin.cuda(1).weight.device)
t("to(dev)", lambda: lin.to(torch.device('cuda:2')).weight.device)
t("to('cuda')", lambda: lin.to('cuda').weight.device)
t("param type", lambda: type(lin.weight).__name__)
t("param repr", lambda: torch.nn.Parameter(torch.ones(2, device='cuda:1')))
t("forward", lambda: lin(torch.ones(4, 3, device='cuda')).device)
t("forward wrong dev", lambda: lin(torch.ones(4, 3)))
dp = torch.nn.DataParallel(torch.nn.Linear(3, 2).cuda())
t("dp repr", lambda: dp)
t("dp ids", lambda: (dp.device_ids, dp.output_device, dp.src_device_obj))
t("dp module", lambda: type(dp.module).__name__)
out = dp(torch.ones(8, 3, device='cuda'))
t("dp out", lambda: (out.shape, out.device))
t("dp ids=[1,2]", lambda: torch.nn.DataParallel(torch.nn.Linear(3, 2).cuda(1), device_ids=[1, 2])(torch.ones(4, 3, device='cuda:1')).device)
t("dp wrong dev", lambda: torch.nn.DataParallel(torch.nn.Linear(3, 2))(torch.ones(4, 3)))
ds = torch.utils.data.TensorDataset(torch.arange(10.).reshape(5, 2), torch.arange(5))
dl = torch.utils.data.DataLoader(ds, batch_size=2, pin_memory=True)
t("dl pinned", lambda: [(x.is_pinned(), y.is_pinned()) for x, y in dl])
t("pin_memory fn", lambda: torch.utils.data._utils.pin_memory.pin_memory([torch.ones(1), {'a': torch.ones(1)}, (torch.ones(1),), 3]))
t("pin_memory fn pinned", lambda: torch.utils.data._utils.pin_memory.pin_memory({'a': torch.ones(1)})['a'].is_pinned())
