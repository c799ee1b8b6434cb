import torch


def default_collate(batch):
    elem = batch[0]
    if isinstance(elem, torch.Tensor):
        return torch.stack(batch, 0)
    if isinstance(elem, float):
        return torch.tensor(batch, dtype=torch.float64)
    if isinstance(elem, int):
        return torch.tensor(batch)
    if type(elem).__module__ == "numpy" and type(elem).__name__ not in ("str_", "bytes_"):
        if isinstance(elem, torch._numpy._np().ndarray):
            return default_collate([torch.as_tensor(b) for b in batch])
        return torch.as_tensor(batch)  # NumPy scalars
    if isinstance(elem, (tuple, list)):
        return [default_collate(list(s)) for s in zip(*batch)]
    if isinstance(elem, dict):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    return batch


def default_convert(data):
    """Without auto-batching: NumPy arrays become tensors, containers are
    walked, everything else passes as it is."""
    if type(data).__module__ == "numpy" and type(data).__name__ not in ("str_", "bytes_"):
        return torch.as_tensor(data)
    if isinstance(data, dict):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data
