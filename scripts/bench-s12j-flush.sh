#!/bin/bash
# s12j (R11-9): cost of checking WCL cache stripes against their running parity when they
# move home. Two cases, each with binary A and B in turn (same machine, same run):
#  flush:   16 writes of (4 MiB - 4 KiB) into 16 stripes of a raid6 4+2 wcl store (1 MiB
#           unit): every cache stripe stays partial, then `store flush` moves 64 MiB home
#           (the settle: each stripe's cache stripe read and checked). Timed: the flush.
#  destage: 16 full-stripe writes (4 MiB): each cache stripe complete, destaged home (the
#           destage: its reads checked). Timed: the 16 writes.
# Usage: scripts/bench-s12j-flush.sh BIN_A BIN_B [ROUNDS] [DIR]
A=$1; B=$2; R=${3:-3}; D=${4:-/tmp/s12j-bench}
mkdir -p "$D"; head -c $((4*1048576)) /dev/urandom > "$D/chunk"
head -c $((4*1048576-4096)) "$D/chunk" > "$D/part"
run() { # BIN CASE -> seconds
  local E=$1 S="$D/s"; rm -rf "$S"
  $E store init "$S" --oss 6 --code raid6 --stripe-unit 1048576 --write-path wcl >/dev/null
  if [ "$2" = flush ]; then
    for i in $(seq 0 15); do $E store write "$S" f --offset $((i*4194304)) < "$D/part" >/dev/null; done
    sync; local t0=$(date +%s.%N); $E store flush "$S" >/dev/null || echo "flush failed" >&2
    local t1=$(date +%s.%N)
  else
    sync; local t0=$(date +%s.%N)
    for i in $(seq 0 15); do $E store write "$S" f --offset $((i*4194304)) < "$D/chunk" >/dev/null; done
    $E store flush "$S" >/dev/null; local t1=$(date +%s.%N)
  fi
  $E store scrub "$S" >/dev/null || echo "scrub rc $?" >&2
  echo "$t1 - $t0" | bc
}
for c in flush destage; do
  for r in $(seq 1 $R); do
    echo "$c round $r: A $(run $A $c) s, B $(run $B $c) s"
  done
done
