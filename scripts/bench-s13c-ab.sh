#!/bin/bash
# s13c: two binaries' `store bench` interleaved (odd sets A then B, even sets B then A), one
# repetition per process, the load average logged before each run.
# Usage: scripts/bench-s13c-ab.sh OUTDIR TAG "BENCH ARGS" BIN_A BIN_B SETS
# Writes OUTDIR/TAG-BIN-SET.json (+ .txt) and OUTDIR/TAG.log.
O=$1; TAG=$2; ARGS=$3; A=$4; B=$5; N=$6
mkdir -p "$O"
for s in $(seq 1 "$N"); do
  if [ $((s % 2)) = 1 ]; then order="$A $B"; else order="$B $A"; fi
  for E in $order; do
    n=$(basename "$E")
    echo "$(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg) $n set $s" >> "$O/$TAG.log"
    # shellcheck disable=SC2086 # ARGS is a list of options
    "$E" store bench $ARGS --repeat 1 --dir "$O/bench-dir" --out "$O/$TAG-$n-$s.json" > "$O/$TAG-$n-$s.txt" 2>&1 || echo "FAIL $n $s" >> "$O/$TAG.log"
  done
done
