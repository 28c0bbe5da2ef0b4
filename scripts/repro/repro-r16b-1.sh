#!/bin/bash
# R16b-1 (LOST by a user action, loud afterwards; low): a hard-link copy of a store (`cp -al`, an
# rsnapshot-style snapshot) shares every zone, epoch and extents file with the original. The copy's
# first write is NOT refused (s15b's sharing check compares OSS *directories* by dev/inode; cp -al makes
# new directories), it writes in place into the original's files, and the original is refused for
# good afterwards ("state and journal are older than its OSS directories").
# usage: EXARAID=... repro-r16b-1.sh DIR
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; rm -rf $D; mkdir -p $D; cd $D
for wp in rmw wcl; do
  rm -rf hl hl2; $B store init hl --oss 6 --code raid6 --stripe-unit 4096 --write-path $wp >/dev/null
  head -c 50000 /dev/urandom > f; $B store put hl f < f
  cp -al hl hl2        # the "snapshot"
  stat -c '%h links: %n' hl/oss-0/exaraid-epoch.json hl/oss-0/objects/* | head -3
  head -c 20000 /dev/urandom > w; $B store write hl2 f --offset 5000 < w; echo "$wp: write into the hard-link copy rc $? (expected: refused, its OSS files are the original's)"
  $B store get hl f > got 2> err; echo "original get rc $? (expected 0, exact)"; cut -c1-160 err
done
