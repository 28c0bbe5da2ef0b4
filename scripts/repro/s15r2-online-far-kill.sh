#!/bin/bash
# Review s15r2 check: `online` of an OSS failed while away for ~530 writing commands (beyond the epoch
# lineage, taken back by its "left at" entry), killed -9 at each durable call, then `online` again
# (and a `get`): must end online with every byte right, never refused for good.
# Usage: EXARAID=... SHIM=/tmp/s15r2-killshim.so s15r2-online-far-kill.sh SCRATCH [MAXN]
set -u
E=${EXARAID:?}; SHIM=${SHIM:?}; D=$1; MAXN=${2:-80}
rm -rf $D/base; mkdir -p $D/base; cd $D/base
$E store init s --oss 6 --code raid6 --stripe-unit 4096 > /dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
mv s/oss-3 oss-3-away; $E store fail s --oss 3 > /dev/null
for i in $(seq 1 530); do off=$(( (i * 4099) % 99000 )); head -c 100 /dev/urandom > w; $E store write s a --offset $off < w || exit 1; dd if=w of=a bs=1 seek=$off conv=notrunc status=none; done
mv oss-3-away s/oss-3
for n in $(seq 1 $MAXN); do
  rm -rf $D/run; cp -a $D/base $D/run; cd $D/run
  LD_PRELOAD=$SHIM KILLN=$n $E store online s --oss 3 > /dev/null 2>&1; rc=$?
  $E store online s --oss 3 > out 2>&1; rc2=$?
  $E store get s a > got 2> err; g=$?
  st=$($E store status s 2>&1 | awk '$1 == "3" {print $2}')
  v=ok; [ $g = 0 ] && ! cmp -s got a && v=WRONG; [ $g != 0 ] && v="get-rc$g"
  echo "n=$n online rc $rc, again rc $rc2 ($(head -c 80 out | tr '\n' ' ')), OSS 3 $st, get: $v"
  [ $rc = 0 ] && break
done
