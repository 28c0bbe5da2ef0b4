#!/bin/bash
# s13h (R11-9 home part): cost of checking a reconstruct-write's home columns against the
# old parity. A reconstruct-write now reads the whole stripe over the range it needs (every
# data and parity element) instead of the unwritten data elements only. Worst case: writes
# of most of a stripe. raid6 4+2 rmw, 1 MiB unit, a 64 MiB file (16 stripes) put first;
# timed: 16 writes of 3 MiB (3 of 4 columns: main reads 1 element, the check reads 6) and
# 16 writes of 2 MiB (2 of 4: main reads 2, the check 6), one CLI command per write
# (open, plan, fsync'd write, close), binaries A and B in turn (same machine, same run).
# Usage: scripts/bench-s13h-rcw.sh BIN_A BIN_B [ROUNDS] [DIR]
A=$1; B=$2; R=${3:-3}; D=${4:-/tmp/s13h-bench}
mkdir -p "$D"; head -c $((64*1048576)) /dev/urandom > "$D/file"
head -c $((3*1048576)) /dev/urandom > "$D/three"; head -c $((2*1048576)) /dev/urandom > "$D/two"
run() { # BIN CASE -> seconds
  local E=$1 S="$D/s"; rm -rf "$S"
  $E store init "$S" --oss 6 --code raid6 --stripe-unit 1048576 --write-path rmw >/dev/null
  $E store put "$S" f < "$D/file" >/dev/null
  sync; local t0=$(date +%s.%N)
  for i in $(seq 0 15); do
    $E store write "$S" f --offset $((i*4194304)) < "$D/$2" >/dev/null || echo "write failed" >&2
  done
  local t1=$(date +%s.%N)
  $E store scrub "$S" >/dev/null || echo "scrub rc $?" >&2
  echo "$t1 - $t0" | bc
}
for c in three two; do
  for r in $(seq 1 $R); do
    echo "$c columns round $r: A $(run $A $c) s, B $(run $B $c) s"
  done
done
