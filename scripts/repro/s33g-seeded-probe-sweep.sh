#!/bin/bash
# s33g: one store test or probe (ignored tests included) per order seed, each run with
# EXARAID_STEP_ORDER_SEED=seed (torture::STEP_ORDER_SEED_ENV: each plan's steps one at a
# time in a seeded merge of its per-OSS step lists); every other env (a probe's knobs:
# S30R_CODE, S32R_DEAD, ..., S31A_KEEP/S30R_KEEP/...) is passed through. Run from crates/store.
# usage: s33g-seeded-probe-sweep.sh BIN TESTNAME FIRST LAST TAG
# prints one line per seed: rc and the run's count lines (a probe's "power cuts"/"cuts"
# summary, a failed test's panic), "|"-joined.
BIN=$1; TEST=$2; FIRST=$3; LAST=$4; TAG=$5
for seed in $(seq "$FIRST" "$LAST"); do
  out=$(EXARAID_STEP_ORDER_SEED=$seed timeout 1200 nice -n 10 "$BIN" --exact "$TEST" \
    --include-ignored --nocapture --test-threads=1 2>&1); rc=$?
  sum=$(echo "$out" | grep -E 'power cuts|cuts:|images,|panicked|first lost: Some|first wrong: Some' \
    | head -6 | cut -c1-400 | tr '\n' '|')
  echo "$TAG order-seed $seed rc $rc: $sum"
done
