#!/usr/bin/env bash
# usage: bench-s18f-ab.sh WORKDIR OLD_BINARY NEW_BINARY
# `store bench --quick --repeat 1 --json`, old and new interleaved (order alternating per set):
# 4 sets with --emulate hdd on WORKDIR's disk, 4 sets on tmpfs (/dev/shm) with fsync.
# JSON in WORKDIR/out/{hdd,shm}-{old,new}-SET.json; summary: bench-s18f-summary.py WORKDIR.
set -u
cd "$1"
OLD=$2; NEW=$3
run() { # tag bin mode dir args...
  local tag=$1 bin=$2 mode=$3 dir=$4; shift 4
  rm -rf "$dir"
  "$bin" store bench "$@" --repeat 1 --json --dir "$dir" > "out/$mode-$tag.json" 2> "out/$mode-$tag.err"
  local rc=$?
  echo "$(date -u +%T) $mode $tag rc=$rc"
  rm -rf "$dir"
}
mkdir -p out
for set in 1 2 3 4; do
  if [ $((set % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for w in $order; do b=$OLD; [ $w = new ] && b=$NEW
    run "$w-$set" $b hdd "$1/d" --quick --emulate hdd
  done
done
for set in 1 2 3 4; do
  if [ $((set % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for w in $order; do b=$OLD; [ $w = new ] && b=$NEW
    run "$w-$set" $b shm /dev/shm/s18f-d --quick
  done
done
echo done
