#!/bin/bash
# cost of the epoch lineage: state file size and CLI write time with a full lineage
set -e
D=/tmp/s13e-cost; rm -rf $D; mkdir -p $D; cd $D
for B in main s13e; do
  E=/tmp/exaraid-$B; [ $B = main ] && E=/tmp/exaraid-main-s13e
  $E store init $B --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
  head -c 1000000 /dev/urandom > base; $E store put $B f < base
  head -c 3000 /dev/urandom > w
  for i in $(seq 1 600); do $E store write $B f --offset $((i*1000)) < w; done
  echo "$B: after 600 writes: state $(wc -c < $B/state) B, lineage entries $(grep -c '"[0-9]*": [0-9]*' $B/state)"
done
for round in 1 2 3; do for B in main s13e; do
  E=/tmp/exaraid-$B; [ $B = main ] && E=/tmp/exaraid-main-s13e
  s=$(date +%s.%N); for i in $(seq 1 50); do $E store write $B f --offset $((i*1000)) < w; done; e=$(date +%s.%N)
  echo "round $round $B: 50 writes $(echo "($e - $s)*1000/50" | bc -l | cut -c1-5) ms each"
done; done
