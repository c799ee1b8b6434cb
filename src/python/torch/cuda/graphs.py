"""torch.cuda's graph API (torch/cuda/graphs.py upstream): the memory pool
handles for now; stream capture (CUDAGraph, graph, make_graphed_callables)
is not modelled yet."""

from torch import _C

__all__ = ["graph_pool_handle"]


def graph_pool_handle():
    """An opaque token for a memory pool shared between graph captures
    (and MemPool): (0, n), n counting from 1 with every MemPool."""
    return _C._graph_pool_handle(True)
