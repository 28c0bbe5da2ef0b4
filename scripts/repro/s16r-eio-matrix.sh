#!/bin/bash
# s16r: read-EIO (s16r-readeio-shim.c) on one file of OSS 1, for each command, OSS 1 healthy and
# failed on record; prints rc per command (raid6 over 6, WP as given). usage: EXARAID=... s16r-eio-matrix.sh DIR [WP]
set -u; B="timeout 60 ${EXARAID:?}"; SO=${READEIO:-/tmp/s16r-readeio.so}; D=$1; WP=${2:-wcl}
rm -rf $D; mkdir -p $D; cd $D
$B store init c --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
head -c 50000 /dev/urandom > f; $B store put c f < f; head -c 3000 /dev/urandom > p; $B store write c f --offset 100 < p
head -c 3000 /dev/urandom > q
for failed in no yes; do for pat in exaraid-oss.json exaraid-extents.json exaraid-extents.log exaraid-epoch.json objects/ .cache; do
  line="failed=$failed EIO=$pat:"
  for cmd in "get s f" "write s f --offset 7000" "status s" "scrub s" "scrub s --repair" "flush s" "online s --oss 1" "rebuild s --oss 1 --to $D/nd" "rebuild s --oss 1"; do
    rm -rf s nd; cp -a c s; [ $failed = yes ] && $B store fail s --oss 1 >/dev/null
    LD_PRELOAD=$SO EIOREAD=oss-1/$pat $B store $cmd < q > out 2>err; rc=$?
    line="$line [${cmd%% s*}${cmd##*--oss 1}=$rc]"
  done; echo "$line"; done; done
