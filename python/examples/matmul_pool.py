"""C = A @ B on global arrays with a task pool: task (i, j, k) reads the tiles A[i, k] and B[k, j]
and accumulates their product into C[i, j] on its owner. Checked against NumPy.
  mpirun -np 4 python3 matmul_pool.py [n] [tile]"""

import sys

import gaea
import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 240
nb = int(sys.argv[2]) if len(sys.argv) > 2 else 60
tiles = -(-n // nb)

rng = np.random.default_rng(42)                   # the same matrices on every rank
A_ref, B_ref = rng.standard_normal((n, n)), rng.standard_normal((n, n))
A, B, C = (gaea.Array((n, n), np.float64, name=x) for x in "ABC")
if gaea.rank() == 0:
    A[...], B[...] = A_ref, B_ref
A.sync()                                          # collective: rank 0's puts are complete
B.sync()
C.zero()


def block(t):
    return slice(t * nb, min(n, (t + 1) * nb))


def task(t):
    i, j, k = t // (tiles * tiles), t // tiles % tiles, t % tiles
    C.acc((block(i), block(j)), A[block(i), block(k)] @ B[block(k), block(j)])


stats = gaea.TaskPool("matmul").run(tiles ** 3, task)
C.sync()
err = np.abs(C[...] - A_ref @ B_ref).max() if gaea.rank() == 0 else 0.0
tasks = gaea.allgather(stats["tasks"])
if gaea.rank() == 0:
    print(f"matmul n={n} tile={nb}: {tiles ** 3} tasks, per rank {list(tasks)}; "
          f"max |C - A@B| = {err:.2e}")
    if err > 1e-10 * n:
        sys.exit("matmul_pool: wrong result")
