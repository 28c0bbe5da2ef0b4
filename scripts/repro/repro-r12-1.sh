#!/bin/bash
# Review s12r R12-1 (WRONG BYTES, exit 0, after damage of the journal's last record): when the
# journal's last record is the `Durable` of a WCL (or delayed-window) write, i.e. the write
# was acknowledged, one bit flipped in that record makes the next open cut it as a torn tail,
# drop the acknowledged cached bytes (they read OLD with exit 0) and then declare "the open
# checked every stripe's parity ... nothing to do", clearing the warning: silent from then on.
# Part A (API, the acknowledged case): needs the example built from repro-r12-1-api.rs
#   (R12_API=path). `Store::write` returns Ok after the Durable's fsync; the `Complete` record
#   it appends after is NOT fsync'd (exec.rs complete_deferred, journal(..., false)), so a
#   power cut after the ack leaves the Durable as the last record on disk (simulated: the
#   journal cut after it). Then one bit of the Durable flipped.
# Part B (CLI, no build): a `write` killed -9 (killshim) right after its Durable's fsync.
# Usage: EXARAID=... [R12_API=...] repro-r12-1.sh [DIR]   (WPATH=wcl|delayed|rmw, default wcl)
set -u
E=${EXARAID:-exaraid}; X=${R12_API:-}; WP=${WPATH:-wcl}; D=${1:-/tmp/repro-r12-1}
HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$D"; mkdir -p "$D"; cd "$D"
if [ -n "$X" ]; then
  echo "== Part A (API) write path $WP"
  $E store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
  head -c 65536 /dev/urandom > old; head -c 3000 /dev/urandom > new
  $E store put s f < old
  [ "$WP" = delayed ] && $E store delayed start s f
  "$X" s f 1000 < new 2>&1 | head -1   # prints "acked" (write returned Ok), then aborts
  python3 - <<PY
import sys; sys.path.insert(0, "$HERE"); from importlib import import_module
recs = import_module("journal-records").recs
b = bytearray(open("s/journal", "rb").read()); rs = recs(bytes(b))
i = max(i for i, r in enumerate(rs) if r[2] == "Durable"); at, ln = rs[i][0], rs[i][1]
print("records after the last Durable (unsynced, a power cut may drop them):", [r[2] for r in rs[i + 1:]])
b = b[:at + ln]; b[at + 8 + ln // 2 - 4] ^= 0x10
open("s/journal", "wb").write(b); print("journal cut after the Durable, one bit of it flipped")
exp = bytearray(open("old", "rb").read()); n = open("new", "rb").read(); exp[1000:1000 + len(n)] = n
open("exp", "wb").write(exp)
PY
  $E store get s f > got 2> err; rc=$?
  echo "get rc=$rc: $(cmp -s got exp && echo 'the acknowledged bytes' || (cmp -s got old && echo 'OLD bytes (the acknowledged write is gone)' || echo 'other bytes'))"
  echo "stderr: $(cat err)"
  $E store get s f > got 2> err; echo "second get rc=$?: $(cmp -s got exp && echo acknowledged || echo NOT the acknowledged bytes), stderr: '$(cat err)'"
  $E store scrub s | tail -1; $E store status s | grep -i -e cut -e lost || echo "status: no tail cut, no lost range on record"
fi
echo "== Part B (CLI write killed right after its Durable) write path $WP"
SHIM=${SHIM:-/tmp/repro-r12-killshim.so}
[ -f "$SHIM" ] || gcc -O2 -shared -fPIC -o "$SHIM" "$HERE/../killshim.c" -ldl
head -c 65536 /dev/urandom > old; head -c 3000 /dev/urandom > new
for K in $(seq 20 120); do
  rm -rf b; $E store init b --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null; $E store put b f < old
  [ "$WP" = delayed ] && $E store delayed start b f >/dev/null
  ( LD_PRELOAD=$SHIM KILLN=$K exec $E store write b f --offset 1000 < new ) 2>/dev/null
  last=$(python3 "$HERE/journal-records.py" b/journal | tail -1 | awk '{print $3}')
  [ "$last" = Durable ] || continue
  echo "killed at durable call $K: the journal's last record is the write's Durable"
  python3 - <<PY
import sys; sys.path.insert(0, "$HERE"); from importlib import import_module
recs = import_module("journal-records").recs
b = bytearray(open("b/journal", "rb").read()); at, ln = recs(bytes(b))[-1][:2]; b[at + 8 + ln // 2 - 4] ^= 0x10
open("b/journal", "wb").write(b)
PY
  $E store get b f > got 2> err; echo "get rc=$?: $(cmp -s got old && echo 'OLD bytes' || echo 'new (or other) bytes'); stderr: $(cat err)"
  break
done
