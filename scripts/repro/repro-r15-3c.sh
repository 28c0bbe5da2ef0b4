#!/bin/bash
# R15-3 on the default layout (OSS count = stripe width): raid6 4+2 over 6 OSSs, a job rewriting the
# first 100 bytes of its file (a header) ~520 times while OSS 3 (a data column those writes do not touch)
# is down: OSS 3 is never recorded failed; when it comes back every command is refused.
# Usage: EXARAID=... [WPATH=rmw|wcl] repro-r15-3c.sh SCRATCH [COMMANDS]   (both reproduce)
set -u
E=${EXARAID:?}; D=$1; N=${2:-530}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path ${WPATH:-rmw} > /dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
for o in 0 1 2 3 4 5; do echo "oss-$o: $(ls s/oss-$o/objects | tr '\n' ' ')"; done
mv s/oss-3 oss-3-away
for i in $(seq 1 $N); do
  head -c 100 /dev/urandom > w; $E store write s a --offset 0 < w 2> err.txt || { echo "write $i rc $?: $(head -c 300 err.txt)"; break; }
  dd if=w of=a bs=1 conv=notrunc status=none
  [ $i = 1 ] && $E store status s | awk '$1 ~ /^[0-9]$/ {printf "%s %s  ", $1, $2} END {print ""}'
done
$E store status s | awk '$1 ~ /^[0-9]$/ {printf "%s %s  ", $1, $2} END {print ""}'
$E store get s a | cmp -s - a && echo "get a (OSS 3 down): same"
mv oss-3-away s/oss-3
$E store get s a > got 2> err.txt; echo "OSS 3 back: get a rc $?: $(head -c 300 err.txt)"
