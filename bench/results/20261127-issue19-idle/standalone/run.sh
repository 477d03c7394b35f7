#!/bin/bash
# interleaved: rounds x (transport, gap, mode); prints raw lines
for r in $(seq 1 ${1:-5}); do
 for tr in tcp shm; do for g in 1000 5000 10000 20000; do
  for m in "spin 0" "lead 60" "lead 240" "lead 1000" "poll 0"; do set -- $m; ./vmwake $tr $1 $g $2 40; done
 done; done
done
