#!/bin/bash
# Session 13 s13e: cost of the epoch lineage (state file size, CLI write time with a full
# lineage of 1024 epochs) against a binary without it.
# Usage: MAIN=exaraid-before NEW=exaraid-after s13e-lineage-cost.sh
set -e
MAIN=${MAIN:-/tmp/exaraid-main-s13e}; NEW=${NEW:-/tmp/exaraid-s13e}
D=/tmp/s13e-cost; rm -rf $D; mkdir -p $D; cd $D
for B in main s13e; do
  E=$NEW; [ $B = main ] && E=$MAIN
  $E store init $B --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
  head -c 1000000 /dev/urandom > base; $E store put $B f < base
  head -c 3000 /dev/urandom > w
  for i in $(seq 1 600); do $E store write $B f --offset $((i*1000)) < w; done
  echo "$B: after 600 writes: state $(wc -c < $B/state) B, lineage entries $(grep -c '"[0-9]*": [0-9]*' $B/state)"
done
for round in 1 2 3; do for B in main s13e; do
  E=$NEW; [ $B = main ] && E=$MAIN
  s=$(date +%s.%N); for i in $(seq 1 50); do $E store write $B f --offset $((i*1000)) < w; done; e=$(date +%s.%N)
  echo "round $round $B: 50 writes $(echo "($e - $s)*1000/50" | bc -l | cut -c1-5) ms each"
done; done
