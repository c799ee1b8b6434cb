import torch, torch.nn as nn
from nncheck import on_devices


def run(dev):
    torch.manual_seed(0)
    model = nn.Sequential(nn.BatchNorm2d(3), nn.ReLU(), nn.MaxPool2d(2), nn.BatchNorm2d(3), nn.ReLU(),
                          nn.AdaptiveAvgPool2d((2, 2)), nn.Flatten(), nn.Linear(12, 5)).to(dev)
    print(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    x = torch.randn(8, 3, 10, 10)
    y = torch.tensor([0, 3, 1, 4, 2, 2, 0, 1])
    for step in range(5):
        opt.zero_grad()
        loss = loss_fn(model(x.to(dev)), y.to(dev))
        loss.backward()
        opt.step()
        print(step, round(loss.item(), 4))
    print([round(v, 4) for v in model[0].running_mean.tolist()], [round(v, 4) for v in model[3].running_var.tolist()])
    print([round(v, 4) for v in model[0].weight.tolist()], [round(v, 4) for v in model[3].bias.tolist()])
    model.eval()
    with torch.no_grad():
        print([round(v, 4) for v in model(x.to(dev))[0].tolist()])


on_devices(run)
