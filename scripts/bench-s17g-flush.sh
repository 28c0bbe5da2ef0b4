#!/usr/bin/env bash
# s17g: scripts/bench-s13c-flush.sh (a timed `store flush` of 16 partial WCL cache stripes,
# raid6 4+2, 1 MiB unit: one settle of 16 stripes) for several binaries, one round at a time,
# the binaries' order rotated every round (A B C, B C A, C A B, ...), and the load average
# before each round. Usage: scripts/bench-s17g-flush.sh DIR ROUNDS BIN...
# Prints the lines of bench-s13c-flush.sh: BIN WALL_S cpu USER_S SYS_S
set -euo pipefail
D=$1 R=$2; shift 2
bins=("$@") n=$#
here=$(dirname "$0")
for r in $(seq 0 $((R - 1))); do
  order=()
  for i in $(seq 0 $((n - 1))); do order+=("${bins[$(((i + r) % n))]}"); done
  echo "# round $((r + 1)) $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  bash "$here/bench-s13c-flush.sh" "$D" 1 "${order[@]}"
done
rm -rf "$D"
