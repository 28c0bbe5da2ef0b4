#!/bin/bash
# R15-3, worst case (LOST, false): raid5 4+1 over 5 OSSs; OSS 1 failed on record (a dead disk waiting for
# its replacement) and OSS 3 down (an enclosure off) while ~520 writes rewrite the first 100 bytes of
# file a (column 0 + parity of stripe 0: neither OSS 1 nor 3). Reads of the stripes needing both fail
# meanwhile (two erasures: right). OSS 3 comes back with every byte current: the store refuses every
# command (1024 epochs behind); the advice (move it aside, fail, rebuild) leaves two OSSs out on raid5,
# and file b (untouched since before both failures, whole on OSS 0, 2, 3, 4) cannot be read although
# every byte of it is on the disks. (Removing OSS 3's exaraid-epoch.json, not documented for this, lets
# the store open and read b.)
# Usage: EXARAID=... repro-r15-3d.sh SCRATCH [COMMANDS]
set -u
E=${EXARAID:?}; D=$1; N=${2:-530}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 5 --code raid5 --stripe-unit 4096 > /dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
head -c 50000 /dev/urandom > b; $E store put s b < b
$E store fail s --oss 1 > /dev/null
mv s/oss-3 oss-3-away
for i in $(seq 1 $N); do
  head -c 100 /dev/urandom > w; $E store write s a --offset 0 < w 2> err.txt || { echo "write $i rc $?: $(head -c 300 err.txt)"; break; }
done
echo "after $i writes: $($E store status s | awk '$1 ~ /^[0-9]$/ {printf "%s %s  ", $1, $2}')"
$E store get s b > got 2> err.txt; echo "get b with OSS 1 failed and OSS 3 down: rc $? (two erasures on raid5: expected)"
mv oss-3-away s/oss-3
$E store get s b > got 2> err.txt; echo "OSS 3 back: get b rc $?: $(head -c 200 err.txt)"
echo "--- the advice: move OSS 3 aside, fail it, rebuild"
mv s/oss-3 oss-3-aside
$E store fail s --oss 3 2>&1 | head -c 300; echo
$E store get s b > got 2> err.txt; echo "get b rc $?: $(head -c 300 err.txt)"
echo "--- instead (undocumented): OSS 3 back, its epoch file removed"
mv oss-3-aside s/oss-3
rm s/oss-3/exaraid-epoch.json
$E store get s b | cmp -s - b && echo "get b: same (every byte was there)"
$E store rebuild s --oss 1; $E store scrub s | tail -1
