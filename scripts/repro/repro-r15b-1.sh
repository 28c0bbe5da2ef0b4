#!/bin/bash
# R15b-1 (review s15r2): R15-3's fix guesses the epoch an OSS down at the open was left at as the
# store's last epoch (the previous session's seal), but the seal is told to the OSSs WITHOUT a sync
# (tell_osses_epoch(epoch, false) in close): a power cut, or the OSS's disk dropping out, within the
# page cache's writeback time after any writing command leaves the OSS holding the bump epoch
# before it. Such an OSS, down while ~512 writing commands run, is refused on its return and the
# whole store with it (R15-3 as before the fix).
# The power cut is emulated: LD_PRELOAD=s15r2-syncsnapshim.so keeps OSS 3's epoch file as of its
# last fsync; "power cut" copies that back (what the disk holds without the unsynced write).
# Usage: EXARAID=... SNAPSHIM=/tmp/s15r2-syncsnapshim.so repro-r15b-1.sh SCRATCH [COMMANDS] [NOCUT]
#   gcc -O2 -shared -fPIC -o /tmp/s15r2-syncsnapshim.so scripts/repro/s15r2-syncsnapshim.c -ldl
# NOCUT=1: the same without the power cut (control: OSS 3 taken back). TWICE=1: see below.
set -u
E=${EXARAID:?}; SHIM=${SNAPSHIM:?}; D=$1; N=${2:-530}; NOCUT=${3:-0}
rm -rf $D; mkdir -p $D/snap; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 > /dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
# TWICE=1: OSS 3 was away once before (3 writes), so the store holds an entry for it, which each
# close then sets to its unsynced seal (the close loop's "back, healthy" branch).
if [ "${TWICE:-0}" = 1 ]; then
  mv s/oss-3 oss-3-away
  for i in 1 2 3; do head -c 100 /dev/urandom > w; $E store write s a --offset 0 < w; dd if=w of=a bs=1 conv=notrunc status=none; done
  mv oss-3-away s/oss-3
  head -c 100 /dev/urandom > w; $E store write s a --offset 0 < w; dd if=w of=a bs=1 conv=notrunc status=none
fi
# The last writing command before the cut, its epoch file syncs recorded.
head -c 100 /dev/urandom > w
LD_PRELOAD=$SHIM SNAPDIR=$D/snap $E store write s a --offset 0 < w; dd if=w of=a bs=1 conv=notrunc status=none
snap=$(ls snap | grep 'oss-3%exaraid-epoch.json$')
echo "OSS 3 epoch file now:       $(cat s/oss-3/exaraid-epoch.json | head -c 60)"
echo "as of its last fsync:       $(cat snap/$snap | head -c 60)"
if [ "$NOCUT" != 1 ]; then cp snap/$snap s/oss-3/exaraid-epoch.json; echo "power cut: OSS 3 keeps what was synced"; fi
mv s/oss-3 oss-3-away     # its disk does not come back after the cut
for i in $(seq 1 $N); do
  head -c 100 /dev/urandom > w; $E store write s a --offset 0 < w 2> err.txt || { echo "write $i rc $?: $(head -c 300 err.txt)"; break; }
  dd if=w of=a bs=1 conv=notrunc status=none
done
$E store status s | awk '$1 ~ /^[0-9]$/ {printf "%s %s  ", $1, $2} END {print ""}'
$E store get s a | cmp -s - a && echo "get a (OSS 3 down): same"
mv oss-3-away s/oss-3
$E store get s a > got 2> err.txt; echo "OSS 3 back: get a rc $?: $(head -c 400 err.txt)"
cmp -s got a && echo "get a: same bytes"
