"""The README's first program in Python: tiles of A handed out by a shared counter, accumulated on
their owners, then one patch read back.  mpirun -np 4 python3 first.py"""

import gaea
import numpy as np

a = gaea.Array((1000, 1000), np.float64, name="A")   # block-distributed over all ranks
a.zero()                                              # collective
next_task = gaea.Counter("tasks")                     # lives on rank 0
tile = np.ones((100, 100))
while (t := next_task.fetch_add(1)) < 100:
    i, j = t // 10 * 100, t % 10 * 100
    a.acc((slice(i, i + 100), slice(j, j + 100)), tile, 2.0)   # A[i:i+100, j:j+100] += 2 * tile
a.sync()                                              # collective: all accumulates are complete
total = a[0:100, 0:100].sum()                         # one-sided read of any patch
if gaea.rank() == 0:
    print(f"sum of A[0:99, 0:99] = {total:g} (expected {2.0 * 100 * 100:g})")
