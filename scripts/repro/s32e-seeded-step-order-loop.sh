#!/bin/bash
# Runs one test of BIN (a test binary of the store crate) per order seed; run from crates/store.
# Session 33 (s33g): the seed is the store's test knob EXARAID_STEP_ORDER_SEED
# (torture::STEP_ORDER_SEED_ENV: where a test runs steps one at a time, a seeded merge of each
# plan's per-OSS step lists), which replaced s32e's scratch patch
# (scripts/repro/s32e-seeded-step-order.patch, S32E_ORDER_SEED; deleted), with the same draws.
# usage: s32e-seeded-step-order-loop.sh BIN TESTNAME FIRST LAST TAG [thread]
# runs the one test per seed with EXARAID_STEP_ORDER_SEED (unless "thread"), S31A_KEEP per seed;
# prints one line per run: seed rc and the failure line.
BIN=$1; TEST=$2; FIRST=$3; LAST=$4; TAG=$5; MODE=$6
for seed in $(seq $FIRST $LAST); do
  keep=/dev/shm/s32e-keep-$TAG-$seed
  rm -rf $keep; mkdir -p $keep
  if [ "$MODE" = thread ]; then
    out=$(S31A_KEEP=$keep nice -n 10 $BIN --exact $TEST --test-threads=1 2>&1); rc=$?
  else
    out=$(EXARAID_STEP_ORDER_SEED=$seed S31A_KEEP=$keep nice -n 10 $BIN --exact $TEST --test-threads=1 2>&1); rc=$?
  fi
  if [ $rc -ne 0 ]; then
    echo "$TAG seed $seed rc $rc: $(echo "$out" | grep -m1 -E 'power cuts \(one|first:' | cut -c1-400)"
  else
    echo "$TAG seed $seed ok"; rm -rf $keep
  fi
done
