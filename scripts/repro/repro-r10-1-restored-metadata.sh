#!/bin/bash
# usage: repro-r10-1-restored-metadata.sh BINARY WORKDIR -- R10-1: the store directory's metadata restored from a copy taken between two commands, after a write
X=$1; W=$2; rm -rf $W; mkdir -p $W; S=$W/s
head -c 40000 /dev/urandom > $W/old; head -c 9000 /dev/urandom > $W/patch
$X store init $S --stripe-unit 4096 --oss 4 --code raid5 --write-path wcl >/dev/null
$X store put $S f < $W/old
mkdir $W/backup; cp $S/superblock $S/state $S/journal $W/backup/
$X store write $S f --offset 4096 < $W/patch
python3 -c "
o=bytearray(open('$W/old','rb').read()); p=open('$W/patch','rb').read(); o[4096:4096+len(p)]=p; open('$W/want','wb').write(o)"
cp $W/backup/* $S/
echo "R10-1 restored metadata: get f:"; $X store get $S f > $W/got; echo "  exit $?"
cmp -s $W/got $W/want && echo "  bytes: the acknowledged (newest) ones" || { cmp -s $W/got $W/old && echo "  bytes: WRONG (the old ones)" || echo "  bytes: other"; }
