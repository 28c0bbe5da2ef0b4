#!/bin/bash
# Review s15r2 check (s15d: an open on a full metadata disk with a journal tail to cut serves reads with
# the decision in memory): the store directory on a 256 KiB tmpfs (root: mounts it), OSSs elsewhere
# (--oss-dirs). A 20,000-byte write killed -9 at its n-th durable call; the metadata disk then filled;
# `get` (full disk) must read old or new bytes per the write's range (never anything else); room again:
# `get` must read the same as the full-disk `get` did (the in-memory decision = the durable one), scrub
# clean. Usage: EXARAID=... SHIM=/tmp/s15r2-killshim.so s15r2-full-meta-kill.sh SCRATCH [WPATH] [MAXN]
set -u
E=${EXARAID:?}; SHIM=${SHIM:?}; D=$1; WP=${2:-wcl}; MAXN=${3:-40}
mkdir -p $D; cd $D; M=$D/meta
mountpoint -q $M || { mkdir -p $M; mount -t tmpfs -o size=256k tmpfs $M; }
for n in $(seq 1 $MAXN); do
  rm -rf $M/* oss; mkdir oss
  $E store init $M/s --oss-dirs $(echo $D/oss/{0,1,2,3,4,5} | tr ' ' ',') --code raid6 --stripe-unit 4096 --write-path $WP > /dev/null || { echo init failed; exit 1; }
  head -c 100000 /dev/urandom > a; $E store put $M/s a < a
  head -c 20000 /dev/urandom > w; cp a new; dd if=w of=new bs=1 seek=30000 conv=notrunc status=none
  LD_PRELOAD=$SHIM KILLN=$n $E store write $M/s a --offset 30000 < w > /dev/null 2>&1; rc=$?
  dd if=/dev/zero of=$M/filler bs=4k status=none 2>/dev/null; dd if=/dev/zero of=$M/filler2 bs=512 status=none 2>/dev/null
  $E store get $M/s a > got1 2> err1; g1=$?
  $E store write $M/s a --offset 0 < <(head -c 10 /dev/zero) > /dev/null 2> err2; w2=$?
  rm -f $M/filler $M/filler2
  $E store get $M/s a > got2 2> err3; g2=$?
  verdict=ok
  if [ $g1 = 0 ]; then
    python3 - got1 a new <<'PY' || verdict=WRONG1
import sys
g, a, n = (open(p, 'rb').read() for p in sys.argv[1:4])
assert len(g) == len(a), "length"
for i in range(0, len(g)):
    if g[i] != a[i] and g[i] != n[i]: raise SystemExit(f"byte {i}")
PY
    # the 10-byte write on the full disk, if it was accepted, is in the later get
    [ $w2 = 0 ] && dd if=/dev/zero of=got1 bs=1 count=10 conv=notrunc status=none
    [ $g2 = 0 ] && ! cmp -s got1 got2 && verdict="$verdict CHANGED(full-disk get != later get)"
  fi
  [ $g2 = 0 ] || verdict="$verdict later-get-rc$g2"
  echo "n=$n write rc $rc | full: get rc $g1, write rc $w2 | room: get rc $g2 | $verdict $( [ $g1 != 0 ] && head -c 150 err1)"
  [ $rc = 0 ] && break
done
umount $M 2>/dev/null
