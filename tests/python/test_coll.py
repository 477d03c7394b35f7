"""Collectives on NumPy buffers against NumPy."""

import gaea
import numpy as np
import pytest


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int32, np.uint8,
                                   np.complex128])
def test_allreduce_sum(dtype):
    p, me = gaea.size(), gaea.rank()
    x = (np.arange(12).reshape(3, 4) + me).astype(dtype)
    got = gaea.allreduce(x)
    want = sum((np.arange(12).reshape(3, 4) + r).astype(dtype) for r in range(p))
    assert got.dtype == x.dtype and got.shape == x.shape
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(x, np.arange(12).reshape(3, 4) + me)   # input untouched


def test_reductions():
    p, me = gaea.size(), gaea.rank()
    assert gaea.allreduce(me, "max") == p - 1
    assert gaea.allreduce(float(me + 1), "prod") == float(np.prod(np.arange(1, p + 1)))
    np.testing.assert_array_equal(gaea.allreduce(np.array([me, -me]), "min"), [0, -(p - 1)])
    r = gaea.reduce(np.full(5, me + 1.0), "sum", root=p - 1)
    if me == p - 1:
        np.testing.assert_array_equal(r, np.full(5, p * (p + 1) / 2))
    else:
        assert r is None
    with pytest.raises(gaea.Error, match="reduction 'avg'"):
        gaea.allreduce(1.0, "avg")


def test_broadcast_and_gathers():
    p, me = gaea.size(), gaea.rank()
    buf = np.full((4, 3), float(me))
    assert gaea.broadcast(buf, root=p - 1) is buf
    np.testing.assert_array_equal(buf, np.full((4, 3), p - 1.0))
    with pytest.raises(gaea.Error, match="C-contiguous"):
        gaea.broadcast(np.zeros((4, 4))[:, 1], root=0)
    obj = gaea.bcast({"rank": me, "list": [1, 2]} if me == 0 else None)
    assert obj == {"rank": 0, "list": [1, 2]}
    np.testing.assert_array_equal(gaea.allgather(np.array([me, 2 * me])),
                                  [[r, 2 * r] for r in range(p)])
