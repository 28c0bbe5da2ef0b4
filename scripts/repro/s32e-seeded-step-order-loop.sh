#!/bin/bash
# With scripts/repro/s32e-seeded-step-order.patch applied in a scratch tree (never in src):
# runs one test of BIN per order seed; run from the tree's crates/store.
# usage: s32e-seeded-step-order-loop.sh BIN TESTNAME FIRST LAST TAG [thread]
# runs the one test per seed with S32E_ORDER_SEED (unless "thread"), S31A_KEEP per seed;
# prints one line per run: seed rc and the failure line.
BIN=$1; TEST=$2; FIRST=$3; LAST=$4; TAG=$5; MODE=$6
for seed in $(seq $FIRST $LAST); do
  keep=/dev/shm/s32e-keep-$TAG-$seed
  rm -rf $keep; mkdir -p $keep
  if [ "$MODE" = thread ]; then
    out=$(S31A_KEEP=$keep nice -n 10 $BIN --exact $TEST --test-threads=1 2>&1); rc=$?
  else
    out=$(S32E_ORDER_SEED=$seed S31A_KEEP=$keep nice -n 10 $BIN --exact $TEST --test-threads=1 2>&1); rc=$?
  fi
  if [ $rc -ne 0 ]; then
    echo "$TAG seed $seed rc $rc: $(echo "$out" | grep -m1 -E 'power cuts \(one|first:' | cut -c1-400)"
  else
    echo "$TAG seed $seed ok"; rm -rf $keep
  fi
done
