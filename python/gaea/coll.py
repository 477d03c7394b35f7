"""Collectives over all ranks on NumPy arrays (gaea::coll on Gaea's transport). Collective: every
rank calls them in the same order with matching shapes and dtypes."""

import pickle

import numpy as np

from . import _gaea


def _copy(x):
    return np.array(x, order="C", copy=True)


def _result(arr, x):
    return arr.item() if np.ndim(x) == 0 and not isinstance(x, np.ndarray) else arr


def allreduce(x, op="sum"):
    """The element-wise reduction of x over all ranks (op: sum, prod, min, max, land, lor), a new
    array (a scalar for a scalar)."""
    arr = _copy(x)
    _gaea._allreduce(arr, op)
    return _result(arr, x)


def reduce(x, op="sum", root=0):
    """The reduction of x over all ranks on `root` (None on the other ranks)."""
    arr = _copy(x)
    _gaea._reduce(arr, op, root)
    return _result(arr, x) if _gaea.rank() == root else None


def broadcast(buf, root=0):
    """Copies root's `buf` (a C-contiguous writable NumPy array, the same shape and dtype on
    every rank) into `buf` on every rank, in place; returns it."""
    if not isinstance(buf, np.ndarray):
        raise TypeError("gaea.broadcast: buf must be a NumPy array (use gaea.bcast for objects)")
    _gaea._broadcast(buf, root)
    return buf


def bcast(obj, root=0):
    """Root's Python object (pickled) on every rank."""
    data = pickle.dumps(obj) if _gaea.rank() == root else b""
    return pickle.loads(_gaea._broadcast_bytes(data, root))


def allgather(x):
    """Every rank's x (same shape and dtype everywhere), stacked in rank order: shape
    (size, *x.shape)."""
    mine = _copy(x)
    out = np.empty((_gaea.size(),) + mine.shape, dtype=mine.dtype)
    _gaea._allgather(mine, out)
    return out
