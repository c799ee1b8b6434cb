# Convolution argument errors with PyTorch 1.13's messages, on the CPU and on DEV.
import torch
import torch.nn.functional as F

from opcheck import DEV, t

for i, dev in enumerate(["cpu", DEV]):
    print("== pass", i)

    def x(*shape, dtype=torch.float32):
        return torch.zeros(*shape, dtype=dtype).to(dev)

    t("channels", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 3, 3, 3)))
    t("divisible", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 2, 3, 3), groups=3))
    t("at least groups", lambda: F.conv2d(x(1, 4, 5, 5), x(2, 1, 3, 3), groups=4))
    t("bias size", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 2, 3, 3), x(7), groups=2))
    t("bias 2-d", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), x(8, 1)))
    t("kernel too big", lambda: F.conv2d(x(1, 4, 2, 2), x(8, 4, 3, 3)))
    t("kernel too big padded", lambda: F.conv1d(x(1, 4, 2), x(8, 4, 5), padding=1))
    t("input rank", lambda: F.conv2d(x(4, 5, 5, 5, 5), x(8, 4, 3, 3)))
    t("input rank 1d", lambda: F.conv1d(x(5), x(8, 4, 3)))
    t("weight rank", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3)))
    t("stride list", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), stride=(1, 1, 1)))
    t("stride 0", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), stride=0))
    t("padding -1", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), padding=-1))
    t("dilation 0", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), dilation=0))
    t("groups 0", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), groups=0))
    t("same strided", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), padding="same", stride=2))
    t("bad padding string", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), padding="foo"))
    t("weight dtype", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3, dtype=torch.float64)))
    t("input dtype", lambda: F.conv2d(x(1, 4, 5, 5, dtype=torch.float64), x(8, 4, 3, 3)))
    t("bias dtype", lambda: F.conv2d(x(1, 4, 5, 5), x(8, 4, 3, 3), x(8, dtype=torch.float64)))
    t("t channels", lambda: F.conv_transpose2d(x(1, 4, 5, 5), x(3, 8, 3, 3)))
    t("t output_padding", lambda: F.conv_transpose2d(x(1, 4, 5, 5), x(4, 8, 3, 3), output_padding=1))
    t("t output_padding 1d", lambda: F.conv_transpose1d(x(1, 4, 5), x(4, 4, 3), output_padding=1))
    t("t output_padding stride", lambda: F.conv_transpose2d(x(1, 4, 5, 5), x(4, 8, 3, 3), output_padding=2,
                                                             stride=2))
    t("t groups", lambda: F.conv_transpose2d(x(1, 4, 5, 5), x(4, 8, 3, 3), groups=3))
    t("t bias", lambda: F.conv_transpose2d(x(1, 4, 5, 5), x(4, 8, 3, 3), x(4)))
    t("unfold rank", lambda: F.unfold(x(2, 3, 4, 5, 6), 2))
    t("fold blocks", lambda: F.fold(x(1, 12, 5), (4, 4), 2))
    t("fold kernel", lambda: F.fold(x(1, 10, 9), (4, 4), 2))
    t("module groups", lambda: torch.nn.Conv2d(4, 6, 3, groups=4))
    t("module in groups", lambda: torch.nn.Conv2d(4, 6, 3, groups=3))
    t("module groups 0", lambda: torch.nn.Conv2d(4, 6, 3, groups=0))
    t("module same strided", lambda: torch.nn.Conv2d(4, 6, 3, padding="same", stride=2))
    t("module t padding_mode", lambda: torch.nn.ConvTranspose2d(4, 6, 3, padding_mode="reflect"))
    t("module output_size", lambda: torch.nn.ConvTranspose2d(2, 2, 3, stride=2).to(dev)(x(1, 2, 4, 4),
                                                                                        output_size=(12, 12)))
