#!/bin/bash
# R16-3 (availability, a bad sector on ONE disk): EIO reading ONE OSS's extents record
# (exaraid-extents.json or exaraid-extents.log, read at every open) refuses every command of the
# store -- get, status, fail, rebuild --to -- even with that OSS failed on record; the message
# says "reads fall back to parity". An EIO on its label or on its objects is decoded around.
# Needs the shim: gcc -O2 -shared -fPIC -o /tmp/s16r-readeio.so scripts/repro/s16r-readeio-shim.c -ldl
# usage: EXARAID=... [READEIO=/tmp/s16r-readeio.so] repro-r16-3.sh DIR
set -u; B="timeout 60 ${EXARAID:?}"; SO=${READEIO:-/tmp/s16r-readeio.so}; D=$1
rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 >/dev/null
head -c 50000 /dev/urandom > f; $B store put s f < f
bad() { LD_PRELOAD=$SO EIOREAD=$1 "${@:2}"; }
for pat in oss-1/exaraid-extents.json oss-1/exaraid-extents.log; do
  echo "--- EIO on reads of $pat (raid6: tolerates 2 OSSs down)"
  bad $pat $B store get s f > got; echo "get rc $? (expected 0: decoded around OSS 1)"
  bad $pat $B store status s > /dev/null; echo "status rc $?"
  bad $pat $B store fail s --oss 1 > /dev/null; echo "fail --oss 1 rc $?"
done
echo "--- OSS 1 failed on record (no shim), then its disk gives EIO on the extents log"
$B store fail s --oss 1 >/dev/null
bad oss-1/exaraid-extents.log $B store get s f > got; echo "get rc $? (expected 0)"
bad oss-1/exaraid-extents.log $B store rebuild s --oss 1 --to $D/newdisk > /dev/null; echo "rebuild --oss 1 --to NEWDIR rc $? (expected 0: the dead-disk replacement)"
echo "--- controls: EIO on OSS 1's label, on its zone files"
bad oss-1/exaraid-oss.json $B store get s f | cmp -s - f; echo "label EIO: get exact $?"
bad oss-1/objects/ $B store get s f | cmp -s - f; echo "objects EIO: get exact $?"
echo "--- the same code path without a shim: OSS 1's extents json replaced by a directory (EISDIR)"
rm -rf t; $B store init t --oss 6 --code raid6 --stripe-unit 4096 >/dev/null; $B store put t f < f
rm t/oss-1/exaraid-extents.json; mkdir t/oss-1/exaraid-extents.json
$B store get t f > got; echo "get rc $? (expected 0)"; $B store status t > /dev/null; echo "status rc $?"
