#!/bin/bash
# Review s6r, R6-4 (second trigger): one transient EIO (scripts/eioshim.c, FAILN=n, not sticky)
# at each durable call of a `write` inside a delayed window that takes the window past
# --unprotected-max-bytes (raid6 4+2, 4 KiB unit, bound 5000): prints per call the write's rc and
# whether the file changed. "rc=1 ... CHANGED" = the command failed but the file holds its bytes.
# Usage: EXARAID=... EIOSHIM=/tmp/...eioshim.so bash scripts/repro/repro-bound-advance-eio.sh [DIR]
E=${EXARAID:-target/release/exaraid}; SHIM=${EIOSHIM:-/tmp/s6r-eioshim.so}; D=${1:-/tmp/s6r-repro-be}
T=$(mktemp -d)
head -c 40000 /dev/urandom > $T/src; head -c 3000 /dev/urandom > $T/w1; head -c 9000 /dev/urandom > $T/w2
setup() { rm -rf $D; $E store init $D --oss 6 --code raid6 --k 4 --stripe-unit 4096 --write-path delayed --unprotected-max-bytes 5000 >/dev/null; $E store put $D f < $T/src; $E store delayed start $D f >/dev/null; $E store write $D f --offset 100 < $T/w1; }
setup; FAILCOUNT_FILE=$T/count LD_PRELOAD=$SHIM FAILN=999999 $E store write $D f --offset 20000 < $T/w2; total=$(cat $T/count)
for n in $(seq 1 $total); do
  setup; $E store get $D f > $T/a
  LD_PRELOAD=$SHIM FAILN=$n $E store write $D f --offset 20000 < $T/w2 2>$T/err; rc=$?
  $E store get $D f > $T/b; ch=$(cmp -s $T/a $T/b && echo unchanged || echo CHANGED)
  echo "n=$n rc=$rc $ch :: $(grep -v EIOSHIM $T/err | cut -c1-120) [$(grep EIOSHIM $T/err | cut -c1-90)]"
done | tee $T/out
echo "SUMMARY: $(grep -c 'rc=1 CHANGED' $T/out) of $total points: write rc 1 but the file holds its bytes"
rm -rf $T $D
