#!/bin/sh
# Review s14r2: R14-2's fix (s14f) under a kill -9: the first open after the escape hatch
# (every exaraid-epoch.json removed under older metadata) is killed at durable call K, then
# `get f`, `get g` (both replaced/removed by the lost newer metadata) must be refused naming
# the loss, never zeros with exit 0. Usage: EXARAID=bin SHIM=killshim.so sh THIS DIR KMAX [CMD]
set -u
E=${EXARAID:?}; SH=${SHIM:?}; D=${1:?}; KMAX=${2:-40}; CMD=${3:-ls}
rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
head -c 40000 /dev/urandom > a; head -c 30000 /dev/urandom > b
"$E" store init ./y0 --oss 5 --code raid6 --stripe-unit 4096 --write-path rmw >/dev/null
"$E" store put ./y0 f < a; "$E" store put ./y0 g < a
mkdir bak; cp -a y0/superblock y0/state y0/journal bak/
"$E" store put ./y0 f < b; "$E" store rm ./y0 g
cp -a bak/* y0/; rm y0/oss-*/exaraid-epoch.json
for k in $(seq 1 "$KMAX"); do
  rm -rf y; cp -a y0 y
  if [ "$CMD" = ls ]; then KILLN=$k LD_PRELOAD=$SH "$E" store ls ./y >/dev/null 2>&1
  else echo x | KILLN=$k LD_PRELOAD=$SH "$E" store write ./y h --offset 0 >/dev/null 2>&1; fi
  kr=$?
  r=""
  for n in f g; do "$E" store get ./y $n > out 2>/dev/null; rc=$?
    nz=$(tr -d '\0' < out | wc -c); sz=$(wc -c < out)
    if [ $rc -eq 0 ]; then r="$r $n:rc0,${sz}B,${nz}nz"; else r="$r $n:refused"; fi; done
  echo "k=$k kill-rc=$kr$r"
done
