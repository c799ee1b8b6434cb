# Tensor creation, dtypes and promotion on the CPU; expectations generated with
# Debian's python3-torch (PyTorch 1.13) and identical under Tensorscope.
import torch


def t(label, f):
    try:
        print(label, "->", repr(f()))
    except Exception as e:
        print(label, "!!", type(e).__name__ + ":", e)


a = torch.tensor([[1., 2., 3.], [4., 5., 6.]])
t("a", lambda: a)
t("tensor int", lambda: torch.tensor([1, 2, 3]))
t("tensor bool", lambda: torch.tensor([True, False]))
t("tensor mixed", lambda: torch.tensor([1, 2.5]))
t("tensor scalar", lambda: torch.tensor(3.5))
t("tensor dtype", lambda: torch.tensor([1, 2], dtype=torch.float64))
t("zeros", lambda: torch.zeros(2, 3, dtype=torch.int64))
t("zeros tuple", lambda: torch.zeros((2, 3)))
t("ones", lambda: torch.ones([2]))
t("full", lambda: torch.full((2, 2), 7))
t("full f", lambda: torch.full((2, 2), 7.))
t("full b", lambda: torch.full((2,), True))
t("arange", lambda: torch.arange(5))
t("arange f", lambda: torch.arange(0, 1, 0.25))
t("empty shape", lambda: torch.empty(2, 3).shape)
t("zeros_like", lambda: torch.zeros_like(a))
t("ones_like dtype", lambda: torch.ones_like(a, dtype=torch.int32))
t("new_zeros", lambda: a.new_zeros(2))
t("new_ones", lambda: a.new_ones((1, 2)))
t("new_full", lambda: a.new_full((2,), 3))
t("new_tensor", lambda: a.new_tensor([1, 2]))
t("new_empty", lambda: a.new_empty(3).shape)
t("new_tensor int", lambda: torch.tensor([1,2]).new_tensor([1.5]))
t("promo int+float", lambda: (torch.tensor([1]) + 1.5).dtype)
t("promo int+f64t", lambda: (torch.tensor([1]) + torch.tensor([1.], dtype=torch.float64)).dtype)
t("promo f32 + f64 scalar tensor", lambda: (torch.tensor([1.]) + torch.tensor(1., dtype=torch.float64)).dtype)
t("promo bool+int", lambda: (torch.tensor([True]) + 1).dtype)
t("promo uint8+int", lambda: (torch.tensor([1], dtype=torch.uint8) + torch.tensor([1])).dtype)
t("promo i32+i64", lambda: (torch.tensor([1], dtype=torch.int32) + torch.tensor([1])).dtype)
