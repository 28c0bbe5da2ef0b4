#!/usr/bin/env bash
# s19r R19-3 (WRONG BYTES after `online`, Rust API) and R19-4 (END poisoned by a racing `fail_oss`):
# `s19r_rotrace DIR CODE winfail 3 SEED`: 3 threads, each a delayed window on its own file (start, 1-4
# writes, end) in a loop; the main thread calls `fail_oss(v)` at a random moment, then after the threads:
# every 4 KiB block reads the model (acknowledged bytes; a refused write's bytes allowed) or is refused
# (lost, named); `online_oss(v)`; the same check. Got: after `online`, blocks that were refused (named
# lost) read with success bytes that are neither the model nor any refused write's (zeros, or stale bytes
# of the shared cache zone): "PROBLEM round R after online: wN WRONG BYTE ...". 13 of 20 runs
# (raid6, rs 4+3, seeds 101..110). R19-4: "wN end Io: this write was not acknowledged ... the sync of
# OSS [v] failed ... is unavailable (marked failed)" and every later call "an earlier operation failed
# half way": END met the failure between its writes and its sync.
# usage: repro-r19-3.sh [CODE] [FIRST_SEED] [RUNS]   (builds the example into $CARGO_TARGET_DIR)
set -u
cd "$(dirname "$0")/../.."
CODE=${1:-rs:43}; FIRST=${2:-101}; RUNS=${3:-6}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-s19r}
cp scripts/repro/s19r-api-rotrace.rs crates/store/examples/s19r_rotrace.rs
cargo build --release -q -p exaraid-store --example s19r_rotrace || exit 1
rm crates/store/examples/s19r_rotrace.rs
X=$CARGO_TARGET_DIR/release/examples/s19r_rotrace
for s in $(seq $FIRST $((FIRST + RUNS - 1))); do
  $X /dev/shm/r19-3 $CODE winfail 3 $s 2>&1 | grep -E 'WRONG BYTE|end Io|blocks refused' | grep -v 'earlier operation' | cut -c1-400 | sed "s/^/seed $s: /"
done
rm -rf /dev/shm/r19-3
