import torch


def default_collate(batch):
    elem = batch[0]
    if isinstance(elem, torch.Tensor):
        return torch.stack(batch, 0)
    if isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    if isinstance(elem, int):
        return torch.tensor(batch)
    if isinstance(elem, (tuple, list)):
        return [default_collate(list(s)) for s in zip(*batch)]
    if isinstance(elem, dict):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    return batch
