#!/bin/bash
# Review s12r R12-7 (WRONG BYTES, exit 0, needs damage of the journal's last record): a `put`
# over an existing file, killed -9 while it removes the old file's objects (after its fsync'd
# `Replace` record); then one bit of that last record (`Replace`) flipped: the open cuts it as
# a torn tail, so the name points at the OLD object again, whose files the put had already
# begun to remove; the open's own check "repaired 2 elements" (re-encoded parity over the
# half-removed object) and `get` returns 30,000 bytes that are neither the old nor the new
# content, exit 0. Without the flip: the new content (right).
# RM=1: the same with `rm f` killed while removing (last record `Remove`, KS="20 24 30 34").
# Usage: EXARAID=... repro-r12-7.sh [DIR]   (CODE=raid5|raid6, KS="68 72 76 80 83", RM=1)
E=${EXARAID:-exaraid}; D=${1:-/tmp/repro-r12-7}; HERE=$(cd "$(dirname "$0")" && pwd)
SHIM=${SHIM:-/tmp/repro-r12-killshim.so}
[ -f "$SHIM" ] || gcc -O2 -shared -fPIC -o "$SHIM" "$HERE/../killshim.c" -ldl
rm -rf "$D"; mkdir -p "$D"; cd "$D"
head -c 30000 /dev/urandom > old; head -c 30000 /dev/urandom > new
if [ -n "${RM:-}" ]; then KS=${KS:-20 24 30 34}; fi
for K in ${KS:-68 72 76 80 83}; do
  for FLIP in 0 1; do
    rm -rf s; $E store init s --oss 5 --code ${CODE:-raid5} --stripe-unit 4096 >/dev/null; $E store put s f < old
    if [ -n "${RM:-}" ]; then ( LD_PRELOAD=$SHIM KILLN=$K exec $E store rm s f ) 2>/dev/null
    else ( LD_PRELOAD=$SHIM KILLN=$K exec $E store put s f < new ) 2>/dev/null; fi
    last=$(python3 "$HERE/journal-records.py" s/journal | tail -1 | awk '{print $3}')
    [ $FLIP = 1 ] && python3 - <<PY
import sys; sys.path.insert(0, "$HERE"); from importlib import import_module
recs = import_module("journal-records").recs
b = bytearray(open("s/journal", "rb").read()); at, ln = recs(bytes(b))[-1][:2]; b[at + 8 + ln // 2 - 2] ^= 0x08
open("s/journal", "wb").write(b)
PY
    $E store get s f > got 2> err; rc=$?
    OP=put; [ -n "${RM:-}" ] && OP=rm; echo "$OP killed at call $K (last record $last), flip=$FLIP: get rc=$rc $(cmp -s got old && echo OLD || (cmp -s got new && echo NEW || echo "NEITHER old nor new ($(wc -c < got) bytes)")) $(head -c 160 err | tr '\n' ' ')"
  done
done
