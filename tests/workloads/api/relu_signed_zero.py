# relu keeps -0.0 and NaN as PyTorch's max(0, x) does, in every form (the
# 8- and 4-wide vector loops, their scalar tail, strided runs, in place,
# float32 and float64), against python3-torch.
import torch
import torch.nn.functional as F

for dt in (torch.float32, torch.float64):
    x = torch.tensor([float('nan'), -0.0, 0.0, -1.0, 2.0, float('-inf'), float('inf'), -1e-40, 1e-40] * 3, dtype=dt)
    for y in (x.relu(), torch.relu(x[::2]), F.relu(x), torch.nn.ReLU()(x), x.clone().relu_(),
              F.relu(x.clone(), inplace=True), x.reshape(3, 9).t().relu()):
        print(dt, [str(v) for v in y.flatten().tolist()[:9]], torch.signbit(y).flatten().tolist()[:9])
