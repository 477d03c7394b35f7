"""Shared counters, task counters and task pools running Python callables."""

import threading
import time

import gaea
import numpy as np
import pytest


def test_counter_hands_out_each_value_once():
    c = gaea.Counter("c", owner=gaea.size() - 1, initial=5)
    mine = [c.fetch_add(1) for _ in range(20)]
    everything = gaea.allgather(np.array(mine)).ravel()
    assert sorted(everything) == list(range(5, 5 + 20 * gaea.size()))
    gaea.barrier()
    assert c.read() == 5 + 20 * gaea.size()
    c.reset(0)
    assert c.compare_swap(0, 7) in (0, 7)
    gaea.barrier()
    assert c.read() == 7
    c.destroy()
    with pytest.raises(gaea.Error, match="after destroy"):
        c.read()


@pytest.mark.parametrize("variant", ["single", "batched", "hierarchical"])
def test_task_counter(variant):
    tc = gaea.TaskCounter(100, variant=variant)
    ids = []
    while r := tc.next():
        ids.extend(r)
    everything = gaea.allgather(np.bincount(ids, minlength=100))
    assert (everything.sum(axis=0) == 1).all()


def test_task_pool_accumulates_like_numpy():
    n = 8
    a = gaea.Array((n, n), np.float64, name="P")
    a.zero()
    pool = gaea.TaskPool("p")
    seen = []

    def task(t):
        seen.append(t)
        a.acc((t // n, t % n), float(t), 2.0)

    stats = pool.run(n * n, task)
    assert stats["tasks"] == len(seen)
    a.sync()
    np.testing.assert_array_equal(a[...], 2.0 * np.arange(n * n).reshape(n, n))
    counts = gaea.allgather(np.bincount(seen, minlength=n * n)).sum(axis=0)
    assert (counts == 1).all()


def test_task_pool_threads_and_workers():
    pool = gaea.TaskPool("w", threads=2)
    workers = set()
    pool.run(50, lambda t, w: workers.add(w))
    assert workers <= {0, 1}


def test_task_pool_exception_reaches_the_caller():
    pool = gaea.TaskPool("x")
    def task(t):
        raise ValueError(f"task {t} refuses")
    with pytest.raises(ValueError, match="refuses"):
        pool.run(16 * gaea.size(), task)


def test_gil_released_while_waiting():
    # Rank 0 enters the barrier late; meanwhile the other ranks' Python threads keep running.
    ticks = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    t = threading.Thread(target=spin)
    t.start()
    time.sleep(0.01)
    before = ticks[0]
    if gaea.rank() == 0:
        time.sleep(0.3)
    gaea.barrier()
    during = ticks[0] - before
    stop.set()
    t.join()
    assert during > 20
