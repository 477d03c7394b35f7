"""Gaea from Python: distributed arrays with one-sided get/put/acc on NumPy arrays, shared
counters and task pools, collectives (docs/python.md).

The runtime starts at the first use (or gaea.init()); its start, like every collective call, must
happen on every rank. It ends at interpreter exit (or gaea.finalize()). An exception that no code
catches ends the whole job with its message on every rank, as in Gaea's C++ programs.
"""

from ._gaea import (Array, Counter, Error, Request, TaskCounter, barrier, elapsed, init,
                    initialized, poll, rank, size)
from ._runtime import finalize

Error.__module__ = "gaea"  # tracebacks say gaea.Error
from .coll import allgather, allreduce, bcast, broadcast, reduce
from .pool import TaskPool

__all__ = [
    "Array", "Counter", "Error", "Request", "TaskCounter", "TaskPool", "allgather", "allreduce",
    "barrier", "bcast", "broadcast", "elapsed", "finalize", "init", "initialized", "poll", "rank",
    "reduce", "size",
]
