#!/bin/bash
# s13c: CPU and wall time of a 64 MiB flush of 16 partial WCL cache stripes (raid6 4+2, 1 MiB
# unit), each binary in turn per round. Per round and binary: a fresh store, 16 writes of
# 4 MiB - 4 KiB at i x 4 MiB, sync, the timed flush (wall, and user + sys of the process),
# then a scrub that must pass.
# Usage: scripts/bench-s13c-flush.sh DIR ROUNDS BIN...
# Prints: BIN WALL_S cpu USER_S SYS_S
D=$1; R=$2; shift 2
mkdir -p "$D"; head -c $((4*1048576)) /dev/urandom > "$D/chunk"; head -c $((4*1048576-4096)) "$D/chunk" > "$D/part"
for r in $(seq 1 "$R"); do
  for E in "$@"; do
    S="$D/s"; rm -rf "$S"
    "$E" store init "$S" --oss 6 --code raid6 --stripe-unit 1048576 --write-path wcl >/dev/null
    for i in $(seq 0 15); do "$E" store write "$S" f --offset $((i*4194304)) < "$D/part" >/dev/null; done
    sync
    t0=$(date +%s.%N); /usr/bin/time -o "$D/cpu" -f "%U %S" "$E" store flush "$S" >/dev/null || echo "flush failed" >&2; t1=$(date +%s.%N)
    "$E" store scrub "$S" >/dev/null || echo "scrub rc $?" >&2
    echo "$(basename "$E") $(echo "$t1 - $t0" | bc) cpu $(cat "$D/cpu")"
  done
done
