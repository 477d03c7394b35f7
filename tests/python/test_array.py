"""gaea.Array against NumPy: subscripts, put/get/acc of every element type, non-blocking requests,
local views, distribution queries, ghosts, errors."""

import gaea
import numpy as np
import pytest

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.complex128, np.complex64]


def reference(shape, dtype):
    ref = np.arange(np.prod(shape)).reshape(shape) % 97 - 40
    if np.issubdtype(dtype, np.complexfloating):
        return (ref + 1j * (ref % 7)).astype(dtype)
    return ref.astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_put_get_acc(dtype):
    shape = (23, 17)
    a = gaea.Array(shape, dtype, name="A")
    assert a.shape == shape and a.ndim == 2 and a.dtype == np.dtype(dtype) and len(a) == 23
    ref = reference(shape, dtype)
    if gaea.rank() == 0:
        a[...] = ref
    a.sync()
    np.testing.assert_array_equal(a[...], ref)
    np.testing.assert_array_equal(a[3:11, 2:16], ref[3:11, 2:16])
    np.testing.assert_array_equal(a[5], ref[5])            # an integer drops its dimension
    np.testing.assert_array_equal(a[:, -3], ref[:, -3])
    np.testing.assert_array_equal(a[-4:, :5], ref[-4:, :5])
    assert a[4, 9] == ref[4, 9] and a[-1, -1] == ref[-1, -1]
    assert a[2:2, :].shape == (0, 17)                      # empty: no transfer
    out = np.empty((8, 2), dtype)
    assert a.get((slice(1, 9), slice(3, 5)), out=out) is out
    np.testing.assert_array_equal(out, ref[1:9, 3:5])
    with pytest.raises(gaea.Error, match="hold 16 elements"):
        a.get((slice(1, 9), slice(3, 5)), out=np.empty(15, dtype))
    a.sync()
    # Every rank accumulates alpha * ones into a patch crossing the owners.
    alpha = 2 if np.issubdtype(dtype, np.integer) else 0.5
    a.acc((slice(4, 20), slice(1, 9)), np.ones((16, 8), dtype), alpha)
    a.sync()
    expected = ref.copy()
    expected[4:20, 1:9] += np.asarray(alpha * gaea.size()).astype(dtype)
    np.testing.assert_allclose(a[...], expected)
    a.destroy()


def test_broadcast_put_and_fill():
    a = gaea.Array((6, 5, 4), "float64", name="B")
    a.fill(3.0)
    np.testing.assert_array_equal(a[...], np.full((6, 5, 4), 3.0))
    a.sync()
    if gaea.rank() == gaea.size() - 1:
        a[1:3, ...] = 7.0               # a scalar broadcast over the patch
        a[4, :, 2] = np.arange(5)       # a row
    a.sync()
    ref = np.full((6, 5, 4), 3.0)
    ref[1:3] = 7.0
    ref[4, :, 2] = np.arange(5)
    np.testing.assert_array_equal(a[...], ref)
    a.zero()
    assert not a[...].any()


def test_nonblocking():
    n = 40
    a = gaea.Array((n, n), np.float64, name="NB")
    a.zero()
    me, p = gaea.rank(), gaea.size()
    rows = range(me, n, p)
    puts = [a.iput((r, slice(None)), np.full(n, r + 0.25)) for r in rows]
    for req in puts:
        assert req.wait() is None
    a.sync()
    gets = [a.iget((slice(r, r + 1), slice(None))) for r in range(n)]
    for r, req in enumerate(gets):
        np.testing.assert_array_equal(req.wait(), np.full((1, n), r + 0.25))
    assert a.iget((3, 5)).wait() == 3.25
    # One element from every row at once, waited in reverse: each lands in its own buffer.
    singles = [a.iget((r, (r * 7) % n)) for r in range(n)]
    for r, req in reversed(list(enumerate(singles))):
        value = req.wait()
        assert isinstance(value, float) and value == r + 0.25
    a.sync()
    dropped = a.iget((slice(None), slice(None)))     # never waited: completed when it goes
    del dropped
    dropped = a.iget((n - 1, 0))
    del dropped
    acc = a.iacc((slice(0, 10), slice(0, 10)), np.ones((10, 10)), 4.0)
    acc.wait()
    a.sync()
    np.testing.assert_array_equal(a[0:10, 0:10], np.add.outer(np.arange(10) + 0.25, np.zeros(10)) + 4.0 * p)


def test_local_view_zero_copy():
    a = gaea.Array((30, 11), np.int64, name="L")
    a.zero()
    (box, view), = a.local_tiles()
    assert box == a.distribution()
    assert view.shape == tuple(s.stop - s.start for s in box)
    rows = np.arange(box[0].start, box[0].stop)[:, None]
    cols = np.arange(box[1].start, box[1].stop)[None, :]
    view[...] = rows * 100 + cols                 # writes go straight to the array's memory
    a.sync()
    full = np.arange(30)[:, None] * 100 + np.arange(11)[None, :]
    np.testing.assert_array_equal(a[...], full)
    with pytest.raises(gaea.Error, match="local view"):
        a.destroy()                                # the view still lives
    del view
    a.destroy()
    assert not a.valid


def test_distribution_queries():
    a = gaea.Array((50, 20), np.float32, name="D", chunk=(5, 20))
    owned = np.zeros((50, 20), int)
    for r in range(gaea.size()):
        box = a.distribution(r)
        if box is not None:
            owned[box] += 1
            assert a.tiles(r) == [box]
    assert (owned == 1).all()
    pieces = a.locate((slice(0, 50), slice(3, 4)))
    assert sum(s[0].stop - s[0].start for _, s in pieces) == 50
    assert all(a.distribution(r) is not None for r, _ in pieces)
    assert a.kind == "block"


def test_irregular_and_block_cyclic():
    p = gaea.size()
    starts = [[0] + [3 + 2 * i for i in range(p - 1)], [0]]
    a = gaea.Array((3 + 2 * p, 4), np.float64, name="I", starts=starts)
    assert a.kind == "irregular"
    first = 3 if p > 1 else 5
    assert a.distribution(0) == (slice(0, first, 1), slice(0, 4, 1))
    c = gaea.Array((17, 13), np.complex128, name="C", tile=(4, 3))
    assert c.kind == "block_cyclic"
    ref = reference((17, 13), np.complex128)
    if gaea.rank() == 0:
        c[...] = ref
    c.sync()
    np.testing.assert_array_equal(c[2:15, 1:12], ref[2:15, 1:12])
    for box, view in c.local_tiles():
        np.testing.assert_array_equal(view, ref[box])


def test_ghosts():
    n, m = 12, 9
    a = gaea.Array((n, m), np.float64, name="G", ghosts=(1, 2))
    assert a.ghosts == (1, 2)
    ref = reference((n, m), np.float64)
    (box, interior), = a.local_tiles()
    interior[...] = ref[box]
    (_, padded), = a.local_tiles(ghosts=True)
    assert padded.shape == (interior.shape[0] + 2, interior.shape[1] + 4)
    a.update_ghosts("periodic")
    rows = np.arange(box[0].start - 1, box[0].stop + 1) % n
    cols = np.arange(box[1].start - 2, box[1].stop + 2) % m
    np.testing.assert_array_equal(padded, ref[np.ix_(rows, cols)])


def test_fixed_ghosts_leave_the_cells_beyond_the_edges():
    n, m = 12, 9
    a = gaea.Array((n, m), np.float64, name="GF", ghosts=(1, 2))
    ref = reference((n, m), np.float64)
    (box, interior), = a.local_tiles()
    (_, padded), = a.local_tiles(ghosts=True)
    padded[...] = -1.0
    interior[...] = ref[box]
    a.update_ghosts("fixed")
    rows = np.arange(box[0].start - 1, box[0].stop + 1)
    cols = np.arange(box[1].start - 2, box[1].stop + 2)
    inside = ((rows >= 0) & (rows < n))[:, None] & ((cols >= 0) & (cols < m))[None, :]
    wrapped = ref[np.ix_(rows % n, cols % m)]
    np.testing.assert_array_equal(padded, np.where(inside, wrapped, -1.0))
    with pytest.raises(gaea.Error, match="neither 'periodic' nor 'fixed'"):
        a.update_ghosts("wrap")


def test_errors_carry_gaea_messages():
    a = gaea.Array((10, 10), np.float64, name="E")
    assert issubclass(gaea.Error, RuntimeError)
    with pytest.raises(gaea.Error, match=r"Array 'E': subscript .*outside dimension 0 of extent 10"):
        a[10, 0]
    with pytest.raises(gaea.Error, match="step other than 1"):
        a[::2]
    with pytest.raises(gaea.Error, match="3 subscripts for 2 dimensions"):
        a[1, 2, 3]
    with pytest.raises(ValueError):
        a[0:2, 0:2] = np.ones(3)                    # not broadcastable
    with pytest.raises(gaea.Error, match="dtype 'int8' is not an element type"):
        gaea.Array((4,), np.int8)
    with pytest.raises(gaea.Error, match="dims"):
        gaea.Array((0, 4))                          # Gaea's own check, on every rank
    a.destroy()
    with pytest.raises(gaea.Error, match="'E': used after destroy"):
        a[0, 0]
