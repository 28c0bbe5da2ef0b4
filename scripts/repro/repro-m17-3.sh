#!/bin/bash
# Merge review s17m, finding M17-3 (s17c's R16b-3 fix incomplete on WCL): a `write` to a new
# name refused for too many OSSs out of service (raid5, OSS 1 and 2 not mounted) says "the
# next open of the store removes it again if no byte of it was written". With rmw and
# delayed the name is gone after the OSSs are back; with WCL (stripe unit 4096, the write
# began: FailedColumnCopy records) the name stays, 20000 bytes long, and reads as 20000
# zero bytes with exit 0 (recovery took the cut write back but kept the size, so
# `drop_unconfirmed_files`, size 0 only, keeps it). No lost range on record.
# Expected: `g` gone (or its bytes named lost). Got: `g` listed, all zeros, exit 0.
# Usage: EXARAID=/path/to/exaraid bash scripts/repro/repro-m17-3.sh
set -u
E=${EXARAID:-/work/target-lead/release/exaraid}
D=$(mktemp -d /dev/shm/s17m-r3.XXXXXX); trap 'rm -rf "$D"' EXIT; cd "$D"
head -c 20000 /dev/urandom > a
for wp in rmw delayed wcl; do
  rm -rf s
  $E store init s --oss 4 --code raid5 --stripe-unit 4096 --write-path $wp >/dev/null
  $E store put s f < a
  for i in 1 2; do mv s/oss-$i s/oss-$i.away; done
  $E store write s g --offset 0 < a 2>err; rc=$?
  grep -q "removes it again" err && promised=yes || promised=no
  for i in 1 2; do mv s/oss-$i.away s/oss-$i; done
  listed=$($E store ls s | awk '$2=="g"{print $1}')
  distinct=$($E store get s g 2>/dev/null | od -An -v -tx1 | tr ' ' '\n' | grep . | sort -u | tr '\n' ' ')
  echo "$wp: write rc=$rc promised-removal=$promised; g listed with size '${listed:-}' ; distinct byte values of get: ${distinct:-none}"
done
