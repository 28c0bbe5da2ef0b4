#!/usr/bin/env bash
# Session 17 (s17g): `store bench` of two binaries side by side, interleaved (old then new in odd
# sets, new then old in even sets), so that the load of a shared machine hits both alike.
# Usage: scripts/bench-s17g-ab.sh OUTDIR MODE "BENCH ARGS" SETS OLD_BIN NEW_BIN
#   e.g. scripts/bench-s17g-ab.sh /tmp/s17g-bench/out qssd "--quick --emulate ssd" 5 /tmp/old /tmp/new
# Writes OUTDIR/MODE-{old,new}-SET.json and appends "MODE BIN SET loadavg" lines to OUTDIR/load.txt.
set -euo pipefail
out=$1 mode=$2 args=$3 sets=$4 old=$5 new=$6
dir=${BENCH_DIR:-/tmp/s17g-bench/d}
mkdir -p "$out"
for set in $(seq 1 "$sets"); do
  if [ $((set % 2)) -eq 1 ]; then order="old new"; else order="new old"; fi
  for b in $order; do
    bin=$old; [ "$b" = new ] && bin=$new
    rm -rf "$dir"
    echo "$mode $b $set $(date -u +%H:%M:%S) $(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/load.txt"
    # shellcheck disable=SC2086
    nice -n 10 "$bin" store bench $args --repeat 1 --dir "$dir" --out "$out/$mode-$b-$set.json" >/dev/null 2>&1
  done
done
rm -rf "$dir"
