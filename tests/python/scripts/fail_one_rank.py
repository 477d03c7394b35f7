"""An uncaught error on one rank ends the job on every rank with its message: rank 1 reads outside
the array while the others wait in a barrier."""

import gaea

a = gaea.Array((10, 10), "float64", name="F")
if gaea.rank() == 1:
    a[10, 0]
gaea.barrier()
print("fail_one_rank: not reached")
