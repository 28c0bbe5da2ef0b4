#!/bin/bash
# Review s15r2 (check of R15-3's fix, not a finding unless it prints WRONG): an OSS left behind is
# taken back at any distance by the epoch it was recorded left at; another copy's OSS must still be
# refused. S: OSS 2 away (left at E). S2 = cp -a of S then (state with the same entry; its own copy
# of the away OSS 2). Case A: S2 puts its OSS 2 back and writes (told S2's epochs), then S gets S2's
# OSS 2: must be refused (or taken as unavailable), never read. Case B: S2's OSS 2 stays away too,
# S2 writes other bytes; S gets S2's OSS 2 (untouched since E: same bytes as S's own): any answer
# but wrong bytes is fine.
# Usage: EXARAID=... s15r2-copy-lineage.sh SCRATCH [COMMANDS]
set -u
E=${EXARAID:?}; D=$1; N=${2:-530}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 > /dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
mv s/oss-2 s-oss-2-away
cp -a s s2; cp -a s-oss-2-away s2-oss-2-away
wr() { for i in $(seq 1 $N); do head -c 100 /dev/urandom > w; $E store write $1 a --offset 0 < w 2>err.txt || { echo "$1 write $i: $(head -c 200 err.txt)"; break; }; [ $1 = s ] && dd if=w of=a bs=1 conv=notrunc status=none; done; }
wr s
# case A: S2 takes its OSS 2 back and writes the whole file over (OSS 2's column changes)
mv s2-oss-2-away s2/oss-2
$E store write s2 a --offset 0 < <(head -c 100000 /dev/urandom) || echo "s2 write failed"
# (S2 writes once: its OSS 2 told an epoch number far behind S's, beyond S's lineage)
mv s2/oss-2 s/oss-2
$E store get s a > got 2>err.txt; rc=$?
if [ $rc = 0 ]; then cmp -s got a && echo "A: S2's OSS 2 in S: get rc 0, same bytes (decoded?)" || echo "A: WRONG BYTES"; else echo "A: refused rc $rc: $(head -c 300 err.txt)"; fi
$E store status s 2>&1 | awk '$1 ~ /^[0-9]$/ {printf "%s %s  ", $1, $2} END {print ""}'
mv s/oss-2 s2-oss-2-used
# case B: S's own away OSS 2 comes back (control)
mv s-oss-2-away s/oss-2
$E store get s a > got 2>err.txt; rc=$?; echo "own OSS 2 back: get rc $rc $(cmp -s got a && echo same)"; head -c 300 err.txt
