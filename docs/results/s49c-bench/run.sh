#!/bin/bash
# Alternate head and ablated (s45c's read-step check skipped) over N pairs; one JSON per run.
# usage: run.sh MODE N  (MODE: nofsync | fsync)
set -u
mode=$1; n=$2
out=/tmp/s49c-meas/$mode; mkdir -p $out
extra=""; [ "$mode" = nofsync ] && extra="--no-fsync"
for i in $(seq ${3:-1} $n); do
  # Alternate which goes first, so neither always runs right after the other.
  if [ $((i % 2)) = 1 ]; then order="head ablated"; else order="ablated head"; fi
  for b in $order; do
    echo "$i $b $(date -u +%H:%M:%S) $(cat /proc/loadavg)" >> $out/load.txt
    /tmp/s49c-bin/exaraid-$b store bench --workload overwrite --repeat 1 --writes-per-thread 64 $extra --json --dir /tmp/s49c-bd-$mode > $out/$b-$i.json 2>/dev/null || echo "FAIL $i $b" >> $out/load.txt
  done
done
