#!/bin/sh
# s50c: alternated pairs, head vs base, quick overwrite bench (dev-profile binaries).
for i in 1 2 3; do
  if [ $((i % 2)) -eq 1 ]; then order="head base"; else order="base head"; fi
  for b in $order; do
    echo "pair $i $b $(date -u +%H:%M:%S) load $(cut -d' ' -f1 /proc/loadavg)" >> /tmp/s50c-bin/runs.log
    /tmp/s50c-bin/exaraid-$b store bench --workload overwrite --quick --json --dir /tmp/s50c-bench > /tmp/s50c-bin/$b-$i.json
  done
done
