#!/bin/bash
# Review s12r R12-5 (WRONG BYTES, exit 0; DOC): an OSS directory of ANOTHER COPY of the store
# (a whole copy, store directory and OSS directories, that went on on its own) mixed in is
# refused only when its metadata epoch NUMBER equals the metadata's; a copy that ran fewer
# write sessions is "behind" (allowed), and if it wrote longer (more generation records) its
# generation is ahead of the record (allowed): it serves the other copy's bytes with exit 0.
# Original: 3 short write sessions (epoch +6, 3 generation records); copy: 1 long streaming
# `write` (epoch +2, a generation record per second of overwrites).
# The superblock holds absolute OSS paths, so the copy is run at the same path (swapped in).
# Usage: EXARAID=... repro-r12-5.sh [DIR]
E=${EXARAID:-exaraid}; D=${1:-/tmp/repro-r12-5}
rm -rf "$D"; mkdir -p "$D"; cd "$D"
$E store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 25165824 /dev/urandom > base; $E store put s f < base
cp -a s s.copy                                    # a whole copy (e.g. a snapshot) taken here
cp base cur
for i in 1 2 3; do head -c 200000 /dev/urandom > w; $E store write s f --offset $((i*300000)) < w
  python3 -c "
c=bytearray(open('cur','rb').read()); b=open('w','rb').read(); c[$i*300000:$i*300000+len(b)]=b; open('cur','wb').write(c)"; done
echo "original: OSS 1 epoch $(cut -c1-40 s/oss-1/exaraid-epoch.json), log $(wc -c < s/oss-1/exaraid-extents.log) B"
mv s s.orig; mv s.copy s                          # the copy goes on on its own (same paths)
for i in 1 2 3 4 5; do head -c 8388608 /dev/urandom; sleep 1.3; done | $E store write s f --offset 0
echo "copy:     OSS 1 epoch $(cut -c1-40 s/oss-1/exaraid-epoch.json), log $(wc -c < s/oss-1/exaraid-extents.log) B"
mv s s.copy; mv s.orig s
rm -rf s/oss-1; cp -a s.copy/oss-1 s/oss-1         # the copy's OSS 1 directory mixed in
$E store get s f > got 2> err; rc=$?
echo "get rc=$rc stderr='$(head -c 300 err)': $(cmp -s got cur && echo right || echo "WRONG BYTES: $(cmp -l got cur | wc -l) bytes are not the acknowledged ones")"
$E store status s | sed -n 4p
