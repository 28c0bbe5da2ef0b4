#!/bin/bash
# Review s12r R12-5 part b: the METADATA (state, journal) of another copy of the store put over
# the store's own: refused when the copy is behind the OSSs, but NOT when the copy ran more
# write sessions (its epoch number ahead of every OSS: "OSS behind = normal") and the OSSs'
# generations are not below the copy's record. Bytes the OSSs hold that the copy's
# metadata does not know of then read wrong with exit 0.
# Usage: EXARAID=... repro-r12-5b.sh [DIR]
E=${EXARAID:-exaraid}; D=${1:-/tmp/repro-r12-5b}
rm -rf "$D"; mkdir -p "$D"; cd "$D"
$E store init s --oss 5 --code raid5 --stripe-unit 4096 --write-path ${WPATH:-rmw} >/dev/null
head -c 25165824 /dev/urandom > base; $E store put s f < base
cp -a s s.copy
# the copy: 3 short write sessions (epoch +6)
mv s s.orig; mv s.copy s
for i in 1 2 3; do head -c 200000 /dev/urandom | $E store write s f --offset $((i*300000)); done
echo "copy:     state epoch via OSS 1 $(cut -c1-30 s/oss-1/exaraid-epoch.json)"
mv s s.copy; mv s.orig s
# the original: one long streaming write session (epoch +2, many generation records)
for i in 1 2 3 4 5; do head -c 8388608 /dev/urandom; sleep 1.3; done > stream
( for i in 0 1 2 3 4; do dd if=stream bs=8388608 skip=$i count=1 status=none; sleep 1.3; done ) | $E store write s f --offset 0
python3 -c "
c=bytearray(open('base','rb').read()); b=open('stream','rb').read(); c[0:len(b)]=b; open('cur','wb').write(c)"
echo "original: OSS 1 $(cut -c1-30 s/oss-1/exaraid-epoch.json)"
cp s.copy/state s.copy/journal s/                 # the copy's metadata over the original's
$E store get s f > got 2> err; rc=$?
echo "get rc=$rc stderr='$(head -c 300 err)': $(wc -c < got) bytes (the original acknowledged $(wc -c < cur)); $(cmp -s got cur && echo 'right' || echo 'NOT the acknowledged file: a silent open of another copy'"'"'s metadata')"
