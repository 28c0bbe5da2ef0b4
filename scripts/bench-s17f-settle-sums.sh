#!/bin/bash
# s17f (note16 OPEN 5c): the cost of the settle's `SettleSums` record (fsync'd per settled
# stripe since s16e) measured alone: one binary, a WCL `flush` of N partial cache stripes
# (each stripe written but its last 4 KiB, so each stays cached and the flush settles it),
# with the record (default) and without it (EXARAID_BENCH_NO_SETTLE_SUMS=1: neither
# computed nor journaled, so no fsync), in turn, same run. Timed: the flush alone.
# Usage: scripts/bench-s17f-settle-sums.sh BIN [N_STRIPES] [ROUNDS] [DIR]
E=$1; N=${2:-64}; R=${3:-3}; D=${4:-/tmp/s17f-bench}
UNIT=65536; K=4; SB=$((UNIT*K))
mkdir -p "$D"; head -c $((SB-4096)) /dev/urandom > "$D/part"
run() { # ENV(0/1) -> seconds
  local S="$D/s"; rm -rf "$S"
  $E store init "$S" --oss 6 --code raid6 --stripe-unit $UNIT --write-path wcl >/dev/null || exit 1
  for i in $(seq 0 $((N-1))); do $E store write "$S" f --offset $((i*SB)) < "$D/part" >/dev/null || exit 1; done
  sync; local t0=$(date +%s.%N)
  if [ "$1" = 1 ]; then EXARAID_BENCH_NO_SETTLE_SUMS=1 $E store flush "$S" >/dev/null || echo "flush failed" >&2
  else $E store flush "$S" >/dev/null || echo "flush failed" >&2; fi
  local t1=$(date +%s.%N)
  $E store scrub "$S" >/dev/null || echo "scrub rc $?" >&2
  rm -rf "$S"
  echo "$t1 - $t0" | bc
}
for r in $(seq 1 $R); do
  echo "$D round $r: with SettleSums $(run 0) s, without $(run 1) s"
done
rm -rf "$D"
