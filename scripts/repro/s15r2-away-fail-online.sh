#!/bin/bash
# Review s15r2 check (R15-3's fix through `online`): OSS 3 away, recorded failed by the operator while
# away, ~530 writes that touch its column too (degraded), the disk back: `online --oss 3` must take it
# back (stale columns rewritten), or refuse with a way out; every byte right either way.
# Usage: EXARAID=... s15r2-away-fail-online.sh SCRATCH [COMMANDS]
set -u
E=${EXARAID:?}; D=$1; N=${2:-530}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 > /dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
mv s/oss-3 oss-3-away
$E store fail s --oss 3 > /dev/null
for i in $(seq 1 $N); do
  off=$(( (i * 4099) % 99000 )); head -c 100 /dev/urandom > w; $E store write s a --offset $off < w 2> err.txt || { echo "write $i rc $?: $(head -c 300 err.txt)"; break; }
  dd if=w of=a bs=1 seek=$off conv=notrunc status=none
done
mv oss-3-away s/oss-3
$E store online s --oss 3 2>&1 | head -c 400; echo " (online rc ${PIPESTATUS[0]})"
$E store status s | awk '$1 ~ /^[0-9]$/ {printf "%s %s  ", $1, $2} END {print ""}'
$E store get s a | cmp -s - a && echo "get a: same" || echo "get a: DIFFERENT or refused"
$E store scrub s | tail -1
