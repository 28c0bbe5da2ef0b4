#!/usr/bin/env bash
# s19r R19-1 (WRONG BYTES; R18-4 reached on raid6 and rs 4+2 with real timing, no hook; Rust API):
# writer threads on disjoint ranges of one file (rmw, 4 KiB unit, nothing failed), a thread flipping one
# byte of a random OSS object file at a time then `scrub(true)`. When a flip lands inside a write's plan,
# the write is refused "checksum mismatch" and the handle is poisoned; the tool then reopens the store
# (recovery) and checks every byte is old or from a refused write. Got (about 1 run in 8): one byte
# neither, read with success (the rotten byte kept under a valid checksum).
# usage: repro-r19-1.sh [CODE] [RUNS]   (CODE raid6 | rs:42 | hdp:5; builds the example into
#        $CARGO_TARGET_DIR, default /work/target-s19r; EXARAID is not used)
set -u
cd "$(dirname "$0")/../.."
CODE=${1:-raid6}; RUNS=${2:-16}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-/work/target-s19r}
cp scripts/repro/s19r-api-rotrace.rs crates/store/examples/s19r_rotrace.rs
cargo build --release -q -p exaraid-store --example s19r_rotrace || exit 1
rm crates/store/examples/s19r_rotrace.rs
X=$CARGO_TARGET_DIR/release/examples/s19r_rotrace
for i in $(seq $RUNS); do
  $X /dev/shm/r19-1 $CODE rmw 6 $((80 + i)) 0 2>&1 | grep -E 'WRONG BYTES|reopened after' | grep -v 'earlier operation' | sed "s/^/run $i: /"
done
rm -rf /dev/shm/r19-1
