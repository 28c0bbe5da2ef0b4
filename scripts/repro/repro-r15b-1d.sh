#!/bin/bash
# R15b-1, worst case (LOST, false): R15-3d's scene (raid5 4+1 over 5 OSSs, OSS 1 failed on record, OSS 3
# down while ~520 writes rewrite a's first 100 bytes) where OSS 3's disk went away right after a
# writing command (a power cut / the enclosure off within the page cache's writeback time: the close's
# unsynced seal epoch never reached its disk; emulated with s15r2-syncsnapshim.so as in repro-r15b-1.sh).
# With s15g's fix the store recorded OSS 3 left at the seal; it holds the bump before it: refused
# as before the fix, and file b (whole on OSS 0, 2, 3, 4) unreadable.
# Usage: EXARAID=... SNAPSHIM=/tmp/s15r2-syncsnapshim.so repro-r15b-1d.sh SCRATCH [COMMANDS] [NOCUT]
set -u
E=${EXARAID:?}; SHIM=${SNAPSHIM:?}; D=$1; N=${2:-530}; NOCUT=${3:-0}
rm -rf $D; mkdir -p $D/snap; cd $D
$E store init s --oss 5 --code raid5 --stripe-unit 4096 > /dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
head -c 50000 /dev/urandom > b; $E store put s b < b
$E store fail s --oss 1 > /dev/null
head -c 100 /dev/urandom > w
LD_PRELOAD=$SHIM SNAPDIR=$D/snap $E store write s a --offset 0 < w
snap=$(ls snap | grep 'oss-3%exaraid-epoch.json$')
[ "$NOCUT" != 1 ] && cp snap/$snap s/oss-3/exaraid-epoch.json && echo "power cut: OSS 3 keeps its epoch file as of its last fsync"
mv s/oss-3 oss-3-away
for i in $(seq 1 $N); do
  head -c 100 /dev/urandom > w; $E store write s a --offset 0 < w 2> err.txt || { echo "write $i rc $?: $(head -c 300 err.txt)"; break; }
done
echo "after $i writes: $($E store status s | awk '$1 ~ /^[0-9]$/ {printf "%s %s  ", $1, $2}')"
mv oss-3-away s/oss-3
$E store get s b > got 2> err.txt; rc=$?; echo "OSS 3 back: get b rc $rc: $(head -c 400 err.txt)"
[ $rc = 0 ] && cmp -s got b && echo "get b: same bytes"
