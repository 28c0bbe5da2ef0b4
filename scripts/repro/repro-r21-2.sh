#!/bin/sh
# R21-2 repro: raid6 rmw, a write over a whole stripe killed after its first journal record (no block
# written), one of its columns' disk gone, `fail` as advised: the put's bytes of that column are LOST.
# usage: EXARAID=... repro-r21-2.sh [OFF LEN]   (16484 6000: two columns, nothing lost)
E=${EXARAID:?}; S=/tmp/s21r-r21-2; OFF=${1:-16384}; LEN=${2:-16384}; rm -rf $S $S.gone
python3 -c "import random,sys; sys.stdout.buffer.write(random.Random(1).randbytes(56644))" > $S.old
python3 -c "import random,sys; sys.stdout.buffer.write(random.Random(2).randbytes($LEN))" > $S.new
$E store init $S --oss 6 --code raid6 --stripe-unit 4096 >/dev/null; $E store put $S f < $S.old
cp -a $S $S.before
EXARAID_KILL_AT=journal-record:1 $E store write $S f --offset $OFF < $S.new; echo "write rc=$?"
for f in $S/oss-*/objects/*; do cmp -s $f $S.before/${f#$S/} || echo "zone file changed by the cut write: $f"; done
mv $S/oss-5 $S.gone; $E store fail $S --oss 5
$E store get $S f > $S.got; echo "get rc=$?"
rm -rf $S $S.gone $S.before $S.old $S.new $S.got
