"""A small Fock-build-like irregular computation: F_ij = sum_kl (ij|kl) D_kl with model two-electron
integrals (ij|kl) = s_ij s_kl / (1 + |c_ij - c_kl|) over basis functions on a line (s: Gaussian
overlaps, c: centres). Shell blocks have irregular sizes; a task is a pair of blocks (I >= J),
skipped when its overlaps are negligible (Schwarz-like screening), so tasks cost very different
amounts: a task pool balances them. Each task reads D once per rank, accumulates F[I, J] and
F[J, I] on their owners. Checked against a NumPy build on rank 0.
  mpirun -np 4 python3 fock_like.py [n]"""

import sys

import gaea
import numpy as np

n = int(sys.argv[1]) if len(sys.argv) > 1 else 96
rng = np.random.default_rng(7)
x = np.sort(rng.uniform(0, n / 6, n))                         # function centres on a line
sizes = rng.integers(1, 9, n)                                 # irregular shell blocks
starts = np.concatenate(([0], np.cumsum(sizes)))
starts = starts[starts < n].tolist() + [n]
blocks = [slice(a, b) for a, b in zip(starts[:-1], starts[1:])]
s = np.exp(-(x[:, None] - x[None, :]) ** 2)                   # overlaps
c = 0.5 * (x[:, None] + x[None, :])                           # centres of the pairs
D_ref = rng.standard_normal((n, n))
D_ref = D_ref + D_ref.T


def coulomb(rows, cols, D):
    """F[rows, cols] = sum_kl (ij|kl) D_kl for the block (rows, cols)."""
    sij, cij = s[rows, cols], c[rows, cols]
    w = (s * D).ravel()
    dist = np.abs(cij[..., None] - c.ravel()[None, None, :])
    return sij * (w / (1 + dist)).sum(axis=-1)


D = gaea.Array((n, n), np.float64, name="D")
F = gaea.Array((n, n), np.float64, name="F")
if gaea.rank() == 0:
    D[...] = D_ref
D.sync()                                                      # rank 0's put is complete
F.zero()
pairs = [(i, j) for i in range(len(blocks)) for j in range(i + 1)
         if s[blocks[i], blocks[j]].max() > 1e-8]              # screening
local_D = None


def task(t):
    global local_D
    if local_D is None:
        local_D = D[...]                                      # once per rank
    i, j = pairs[t]
    f = coulomb(blocks[i], blocks[j], local_D)
    F.acc((blocks[i], blocks[j]), f)
    if i != j:
        F.acc((blocks[j], blocks[i]), f.T)


stats = gaea.TaskPool("fock").run(len(pairs), task)
F.sync()
tasks = gaea.allgather(stats["tasks"])
if gaea.rank() == 0:
    F_ref = np.zeros((n, n))
    for i, j in pairs:
        f = coulomb(blocks[i], blocks[j], D_ref)
        F_ref[blocks[i], blocks[j]] = f
        F_ref[blocks[j], blocks[i]] = f.T
    err = np.abs(F[...] - F_ref).max() / np.abs(F_ref).max()
    print(f"fock_like n={n}: {len(blocks)} shell blocks, {len(pairs)} of "
          f"{len(blocks) * (len(blocks) + 1) // 2} pairs after screening, tasks per rank "
          f"{list(tasks)}; relative error {err:.1e}")
    if err > 1e-12:
        sys.exit("fock_like: wrong result")
