#!/bin/bash
# R17-4: an OSS whose disk returns EIO to fallocate (a dying disk: its writes fail too) is never
# recorded failed when the first thing that meets it is a reservation (a write into new slots, a
# settle): the write is refused "OSS ... is unavailable ...; writes need `exaraid store rebuild`",
# `rebuild` refuses that OSS as healthy, and every such write keeps failing. The same EIO met by
# a plan's pwrite records the OSS failed and the write goes on degraded (control, KIND=write).
# Part 2 (delayed store, another OSS failed inside a window): the open's absorb settle meets it:
# every command refused, as in R17-1.
# Needs: gcc -O2 -shared -fPIC -o /tmp/s17r-nospc.so scripts/repro/s17r-nospc-shim.c -ldl
# usage: EXARAID=... [KIND=falloc|write] repro-r17-4.sh DIR
set -u; E="timeout 60 ${EXARAID:?}"; D=$1; K=${KIND:-falloc}; SO=${NOSPCSO:-/tmp/s17r-nospc.so}
rm -rf $D; mkdir -p $D; cd $D
dying() { LD_PRELOAD=$SO NOSPCFILE=oss-3/objects NOSPCAFTER=0 NOSPCERRNO=5 NOSPCKIND=$K "$@"; }
echo "=== part 1: rmw, OSS 3's disk fails every $K with EIO"
$E store init s --oss 7 --code rs --k 4 --m 3 --stripe-unit 4096 >/dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
head -c 50000 /dev/urandom > w
for i in 1 2; do dying $E store write s a --offset 90000 < w 2>err; echo "write past the end rc $?: $(head -c 250 err)"; done
$E store status s | sed -n 6p | cut -c1-60
$E store rebuild s --oss 3 2>&1 | cut -c1-200
echo "=== part 2: delayed, window open, OSS 1 failed inside it, OSS 3's disk fails every $K with EIO"
rm -rf s; $E store init s --oss 7 --code rs --k 4 --m 3 --stripe-unit 4096 --write-path delayed >/dev/null
$E store put s a < a; head -c 5000 /dev/urandom > b; $E store put s b < b
tok=$($E store delayed start s a)
for off in 1000 30000 52000; do head -c 9000 /dev/urandom > w; $E store write s a --offset $off < w; done
$E store fail s --oss 1 | head -1
for c in "status s" "get s b" "ls s"; do dying $E store $c > out 2>err; echo "$c: rc $? $(head -c 250 err)"; done
$E store get s b | cmp - b && echo "the EIO gone: b exact"
