#!/bin/bash
# usage: repro-r10-4-journal-deleted.sh BINARY WORKDIR  -- R10-4: journal deleted after a kill -9 that followed an acknowledged write
X=$1; W=$2; rm -rf $W; mkdir -p $W; S=$W/s
head -c 40000 /dev/urandom > $W/old; head -c 9000 /dev/urandom > $W/patch
$X store init $S --stripe-unit 4096 --oss 4 --code raid5 --write-path wcl >/dev/null
$X store put $S f < $W/old
cp -a $S $W/pristine
last=0
for n in $(seq 1 100); do
  rm -rf $S; cp -a $W/pristine $S
  EXARAID_KILL_AT=journal-record:$n $X store write $S f --offset 8192 < $W/patch 2>/dev/null
  rc=$?; [ $rc -eq 137 ] || break; last=$n
done
rm -rf $S; cp -a $W/pristine $S
EXARAID_KILL_AT=journal-record:$last $X store write $S f --offset 8192 < $W/patch 2>/dev/null
echo "killed at journal-record:$last (rc $?), journal $(stat -c %s $S/journal) bytes; journal deleted"
rm $S/journal
python3 -c "
o=bytearray(open('$W/old','rb').read()); p=open('$W/patch','rb').read(); o[8192:8192+len(p)]=p; open('$W/want','wb').write(o)"
echo "get f:"; $X store get $S f > $W/got; echo "  exit $?"
cmp -s $W/got $W/want && echo "  bytes: the acknowledged (newest) ones" || { cmp -s $W/got $W/old && echo "  bytes: WRONG (the old ones)" || echo "  bytes: other"; }
