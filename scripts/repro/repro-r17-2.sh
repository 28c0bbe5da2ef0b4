#!/bin/bash
# R17-2 BAD ERROR (low): raid5 with OSS 0 failed on record (a dead disk awaiting replacement) and
# every read of OSS 1's zone file failing EIO (bad sectors): `scrub` (no --repair) names the
# unreadable elements with "its stripe lacks that redundancy: `scrub --repair` rewrites it from
# parity", but nothing can rewrite them (beyond the tolerance) and their bytes do not read now:
# `get` refuses naming them lost, and `scrub --repair` says "unrepairable ... lost".
# Needs: gcc -O2 -shared -fPIC -o /tmp/s17r-readeio.so scripts/repro/s16r-readeio-shim.c -ldl
# usage: EXARAID=... [READEIO=/tmp/s17r-readeio.so] repro-r17-2.sh DIR
set -u; E="timeout 60 ${EXARAID:?}"; SO=${READEIO:-/tmp/s17r-readeio.so}; D=$1
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 50000 /dev/urandom > f; $E store put s f < f
$E store fail s --oss 0
bad() { LD_PRELOAD=$SO EIOREAD=oss-1/objects/0.data "$@"; }
echo "--- scrub (no --repair), EIO on OSS 1's zone file"
bad $E store scrub s; echo "scrub rc $?"
echo "--- get in the same state"
bad $E store get s f > got 2>err; echo "get rc $?: $(head -c 300 err)"
echo "--- scrub --repair"
bad $E store scrub s --repair | grep -c unrepairable
