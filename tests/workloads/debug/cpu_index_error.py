# On the CPU the same lookup raises IndexError at once.
import torch
table = torch.zeros(4, 2)
try:
    table.index_select(0, torch.tensor([4]))
except IndexError as err:
    print("IndexError:", err)
