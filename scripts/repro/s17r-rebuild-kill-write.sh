#!/bin/bash
# s17r: a rebuild (in place or --to) killed -9 part-way, then degraded writes over stripes it may
# have rebuilt already (the file's start) and elsewhere, then the rebuild rerun; then the OTHER
# OSSs failed up to the tolerance so the rebuilt OSS's bytes are read; get must be exact, scrub clean.
# usage: EXARAID=... s17r-rebuild-kill-write.sh DIR SEED [WP=rmw] [TO=0|1] [MB=100]
set -u; E=${EXARAID:?}; D=$1; SEED=$2; WP=${3:-rmw}; TO=${4:-0}; MB=${5:-100}; RANDOM=$SEED
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
head -c $((MB*1000000)) /dev/urandom > model; $E store put s f < model
$E store fail s --oss 1 >/dev/null
if [ $TO = 1 ]; then TOA="--to $D/new1"; else TOA=""; fi
$E store rebuild s --oss 1 $TOA > rb1.out 2>&1 & pid=$!
sleep 0.$(printf %03d $((RANDOM % 250 + 5))); kill -9 $pid 2>/dev/null; wait $pid 2>/dev/null; echo "first rebuild: $(cat rb1.out | head -c 200)"
for i in 1 2 3 4 5 6; do
  if [ $i -le 3 ]; then off=$((RANDOM * 7 % 300000)); else off=$(( (RANDOM * 32768 + RANDOM) % (MB*1000000 - 10000) )); fi
  len=$((RANDOM % 9000 + 1)); head -c $len /dev/urandom > w
  if $E store write s f --offset $off < w 2>werr; then
    python3 - "$off" <<'PY'
import sys,os
o=int(sys.argv[1]); w=open('w','rb').read()
with open('model','r+b') as m: m.seek(o); m.write(w)
PY
  else echo "write refused: $(head -c 200 werr)"; fi
done
$E store rebuild s --oss 1 $TOA > rb2.out 2>&1; echo "rerun rc $? $(head -c 200 rb2.out)"
$E store scrub s > scrub.out 2>&1; echo "scrub rc $? $(tail -1 scrub.out | head -c 200)"
$E store fail s --oss 0 >/dev/null; $E store fail s --oss 2 >/dev/null
$E store get s f > got 2>gerr; echo "get (OSS 0,2 failed) rc $? $(head -c 200 gerr)"; cmp got model && echo EXACT || echo "WRONG BYTES: $(cmp -l got model | wc -l) differ"
