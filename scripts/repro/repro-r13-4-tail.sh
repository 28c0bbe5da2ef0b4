#!/bin/bash
# Review s13r R13-4, reached without any repair command: the scene of repro-r13-4.sh, then an
# unrelated `put g` killed -9 at its first journal append (killshim KILLN=1 KILLTEAR=1: a torn
# tail); the next open's own recovery/tail-cut check moves or "repairs" f's stripe: f reads wrong, rc 0.
# Usage: EXARAID=... SHIM=/tmp/exaraid-killshim.so scripts/repro/repro-r13-4-tail.sh [DIR]
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r13-4-tail}; N=1
rm -rf $D; mkdir -p $D; S=$D/s; cd $D
$E store init $S --oss 6 --code raid6 --stripe-unit 4096 --write-path rmw >/dev/null
head -c 65536 /dev/urandom > orig; $E store put $S f < orig; cp orig exp
cp $S/oss-0/objects/0.data snapdata
head -c 3000 /dev/urandom > lostw; $E store write $S f --offset 0 < lostw
cp snapdata $S/oss-0/objects/0.data
head -c 3000 /dev/urandom > after; $E store write $S f --offset 0 < after
python3 -c "a=bytearray(open('exp','rb').read()); w=open('after','rb').read(); a[0:3000]=w; open('exp','wb').write(a)"
$E store get $S f | cmp -s - exp && echo "before: right"
head -c 5000 /dev/urandom | LD_PRELOAD=${SHIM:-/tmp/exaraid-killshim.so} KILLN=$N KILLTEAR=1 $E store put $S g 2>&1 | grep KILLSHIM
$E store get $S f 2>err > got; echo "get rc=$? wrong $(cmp -l got exp | wc -l): $(head -c 300 err)"
