"""mpi4py starts MPI, then Gaea runs on it; gaea.finalize() keeps MPI up for mpi4py and a second
runtime; mpi4py ends MPI at exit after Gaea's exit handler."""

from mpi4py import MPI  # noqa: I001 (first on purpose)
import gaea
import numpy as np

comm = MPI.COMM_WORLD
for round_ in range(2):
    gaea.init()
    assert gaea.rank() == comm.Get_rank() and gaea.size() == comm.Get_size()
    a = gaea.Array((8, 8), np.float64, name=f"round{round_}")
    a.acc((slice(None), slice(None)), np.ones((8, 8)), 1.0)
    a.sync()
    assert (a[...] == comm.Get_size()).all()
    gaea.finalize()          # destroys `a` (still referenced here), then the runtime
    assert not a.valid
    assert comm.allreduce(1) == comm.Get_size()
if comm.Get_rank() == 0:
    print("mpi4py_first: ok")
