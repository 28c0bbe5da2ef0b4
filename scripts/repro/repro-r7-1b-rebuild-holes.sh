#!/bin/bash
# usage: repro-r7-1b-rebuild-holes.sh EXARAID DIR  -- review s7r R7-1b repro: raid6 4+2 over 6, rmw, 1 MiB units,
# 10 puts of 100 bytes, fail OSS 3, rebuild OSS 3; du -sk of each OSS before/after.
X=$1; S=$2
rm -rf $S
$X store init $S --oss 6 --code raid6 --stripe-unit 1048576 >/dev/null
for i in $(seq 0 9); do head -c 100 /dev/urandom | $X store put $S f$i; done
echo "before: $(for i in 0 1 2 3 4 5; do du -sk $S/oss-$i | cut -f1; done | tr '\n' ' ')"
$X store fail $S --oss 3 >/dev/null
$X store rebuild $S --oss 3 >/dev/null
echo "after:  $(for i in 0 1 2 3 4 5; do du -sk $S/oss-$i | cut -f1; done | tr '\n' ' ')"
$X store scrub $S >/dev/null; echo "scrub rc=$?"
