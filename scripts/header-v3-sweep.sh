#!/bin/bash
# Review tool (engineer s9s, not CI; brief item 6): WCL raid6 write killed -9 at durable calls FROM..TO; per image
# the state header version, a session-8 binary's get (must refuse v3 with rc 1, journal and state unchanged), the
# new binary's get, then the session-8 binary again. Env FROM, TO; needs /tmp/s9s-hv/{a,w} (random 200000 / 50000 B)
# and /tmp/s9s-killshim.so.
# item 6: a store whose journal holds a session-9 record (WriteParityCrcs of a WCL write cut by kill -9)
E=/work/target-s9r/release/exaraid; O=/work/share8/exaraid-s8int; D=/tmp/s9s-hv/s
for n in $(seq ${FROM:-3} ${TO:-30}); do
rm -rf $D; $E store init $D --oss 6 --code raid6 --stripe-unit 16384 --write-path wcl >/dev/null
head -c 200000 /dev/urandom > /tmp/s9s-hv/a; $E store put $D f < /tmp/s9s-hv/a
head -c 50000 /dev/urandom > /tmp/s9s-hv/w
LD_PRELOAD=/tmp/s9s-killshim.so KILLN=$n $E store write $D f --offset 7000 < /tmp/s9s-hv/w 2>/dev/null; rc=$?
ver=$(xxd -s 0 -l 16 -p $D/state)
h1=$(md5sum $D/journal* 2>/dev/null | md5sum); st1=$(md5sum $D/state* | md5sum)
$O store get $D f > /tmp/s9s-hv/o8 2>/tmp/s9s-hv/e8; rc8=$?
h2=$(md5sum $D/journal* 2>/dev/null | md5sum); st2=$(md5sum $D/state* | md5sum)
[ "$h1" = "$h2" ] && jr=same || jr=CHANGED; [ "$st1" = "$st2" ] && sr=same || sr=CHANGED
$E store get $D f > /tmp/s9s-hv/o9 2>/tmp/s9s-hv/e9; rc9=$?
$O store get $D f > /tmp/s9s-hv/o8b 2>/tmp/s9s-hv/e8b; rc8b=$?
cmp -s /tmp/s9s-hv/o9 /tmp/s9s-hv/o8b && same=eq || same=DIFF
echo "n=$n writerc=$rc hdr='$ver' s8 rc=$rc8 journal=$jr state=$sr | new rc=$rc9 | s8 after rc=$rc8b $same | $(head -c 150 /tmp/s9s-hv/e8 | tr '\n' ' ')"
done
