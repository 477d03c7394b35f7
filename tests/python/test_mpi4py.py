"""Gaea beside mpi4py on the same MPI_COMM_WORLD (here Gaea started MPI: conftest.py imports it
first; scripts/mpi4py_first.py covers the other order)."""

import gaea
import numpy as np
import pytest

MPI = pytest.importorskip("mpi4py.MPI")


def test_same_world():
    comm = MPI.COMM_WORLD
    assert comm.Get_rank() == gaea.rank() and comm.Get_size() == gaea.size()
    a = gaea.Array((comm.Get_size(), 3), np.int32, name="M")
    a[comm.Get_rank(), :] = comm.Get_rank()
    a.sync()
    total = comm.allreduce(int(a[...].sum()))
    assert total == comm.Get_size() * 3 * sum(range(comm.Get_size()))
    comm.Barrier()
