#!/bin/bash
# interleaved app_energy runs: base vs new, reps
set -u
reps=${1:-3}; out=${2:-/tmp/cmp/apps}
mkdir -p $out
for r in $(seq 1 $reps); do
  order="base new"; ((r % 2 == 0)) && order="new base"
  for b in $order; do
    root=/work/$b; [[ $b == new ]] && root=/work/main
    echo "$(date +%T) rep$r $b load $(cut -d' ' -f1 /proc/loadavg)" | tee -a $out/log
    $root/bench/app_energy.sh --build $root/build --reps 1 --apps "${APPS:-lbm scf}" --modes "${MODES:-auto off spin}" \
      --layouts "${LAYOUTS:-node-2 node-4 hosts}" --coloc-app none --max-load 6 --max-busy 60 --wait 120 \
      --out $out/$b-rep$r > $out/$b-rep$r.log 2>&1 || echo "FAIL $b rep$r" >> $out/log
  done
done
