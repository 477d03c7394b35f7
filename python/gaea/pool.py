"""gaea.TaskPool: numbered tasks handed out across ranks by a shared counter, each run by a
Python callable."""

import inspect

from . import _gaea


def _takes_worker(fn):
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    positional = [p for p in params
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= 2 or any(p.kind == p.VAR_POSITIONAL for p in params)


class TaskPool(_gaea.TaskPool):
    """Collective: TaskPool(name="tasks", threads=1, variant="batched", mode=None, owner=0).
    run(n, fn) calls fn(task) (or fn(task, worker)) once for every task 0..n-1 over all ranks
    and returns this rank's figures (a dict: tasks, fetches, compute_s, wait_s, wall_s,
    threads). The GIL is released while a rank waits for task ids."""

    def run(self, n_tasks, fn):
        return super().run(n_tasks, fn, _takes_worker(fn))
