#!/usr/bin/env bash
# s19r R19-2 (R18-3's family, another path): a rotten byte in a delayed window's only copy (cache
# zone, no parity yet); the loss is recorded by a `rebuild` of an unrelated failed OSS; the window's END
# then exits 0 saying nothing. usage: EXARAID=... repro-r19-2.sh [DIR]
set -u
E=${EXARAID:?}; D=${1:-/dev/shm/r19-2}; rm -rf $D; mkdir -p $D; S=$D/s
$E store init $S --oss 6 --code raid6 --stripe-unit 4096 --write-path delayed >/dev/null || exit 1
head -c 20000 /dev/urandom | $E store put $S f
T=$($E store delayed start $S f); echo "window $T"
head -c 9000 /dev/urandom | $E store write $S f --offset 5000; echo "window write rc=$?"
C=$(ls $S/oss-*/objects/*.cache | head -1); echo "flip one byte of $C (a window byte's only copy)"
python3 -c "import sys; f=open(sys.argv[1],'r+b'); f.seek(100); b=f.read(1); f.seek(100); f.write(bytes([b[0]^0x20]))" $C
O=$(basename $(dirname $(dirname $C))); O=${O#oss-}; X=$(( (O + 3) % 6 ))
$E store fail $S --oss $X; echo "fail OSS $X rc=$?"
$E store rebuild $S --oss $X 2>&1 | tail -2; echo "rebuild rc=${PIPESTATUS[0]}"
$E store status $S --json | python3 -c 'import json,sys; print("lost_ranges", json.load(sys.stdin)["lost_ranges"])'
$E store delayed end $S $T; echo "END rc=$? (expected 1, naming the window's lost bytes)"
$E store get $S f > /dev/null; echo "get rc=$?"
