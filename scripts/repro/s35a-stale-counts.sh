#!/usr/bin/env bash
# s35a: run the stale-element and dead-disk test binaries named on the command line (paths
# of built test binaries) once each, single-threaded, and print per binary its result and
# the count of its stderr lines naming a loss (a line containing "LOST"). Run it on a build
# before and after a change and diff the logs it leaves in $OUT (default /tmp/s35a-counts).
# Usage: scripts/repro/s35a-stale-counts.sh LABEL BIN...
set -u
label=$1
shift
out=${OUT:-/tmp/s35a-counts}/$label
mkdir -p "$out"
export TMPDIR=${TMPDIR:-/dev/shm/s35a-tmp}
mkdir -p "$TMPDIR"
for bin in "$@"; do
  name=$(basename "$bin" | sed 's/-[0-9a-f]*$//')
  log=$out/$name.log
  timeout 1200 nice -n 10 "$bin" --nocapture --test-threads 1 >"$log" 2>&1
  rc=$?
  result=$(grep -m1 '^test result:' "$log" | cut -d. -f1-2)
  lost=$(grep -c 'LOST' "$log")
  echo "$name rc=$rc lost_lines=$lost $result"
done
