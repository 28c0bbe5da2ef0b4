#!/bin/bash
# s28b: two crashes alone on a WCL store, every pair of named kill points. Per write kill W
# (plan order) of torture write N (seed SEED, writes 0..N-1 acknowledged), a copy of the
# store per recovery kill R: `store ls` (its open's recovery) killed at R (plan order), then
# `get`; a failed get (a LOSS: nothing but two crashes happened) prints FAIL. Bytes are not
# compared here (the test s28b_wcl_array_recovery_killed_in_parity_rewrite.rs compares them).
# usage: s28b-recovery-kill-pairs.sh EXARAID_BIN DIR SEED N "W list" "R list" INIT_ARGS...
# example: scripts/repro/s28b-recovery-kill-pairs.sh target/debug/exaraid /tmp/s28b-sw 101 26 \
#   "write-torn-block:1 write-torn-block:2" "settle-torn-block:4 settle-torn-block:5" \
#   --oss 5 --code xcode --p 5 --stripe-unit 4096
B=$1; D=$2; SEED=$3; N=$4; WL=$5; RL=$6; shift 6
fails=0; total=0
for w in $WL; do
  rm -rf "$D"; mkdir -p "$D"
  "$B" store init "$D/S" --write-path wcl "$@" >/dev/null || exit 9
  "$B" store torture "$D/S" --seed "$SEED" --start 0 --count "$N" >/dev/null || exit 9
  EXARAID_KILL_AT=$w EXARAID_KILL_IN_PLAN_ORDER=1 "$B" store torture "$D/S" --seed "$SEED" --start "$N" --count 1 >/dev/null 2>&1
  [ $? -eq 137 ] || { echo "$w not killed"; continue; }
  for r in $RL; do
    rm -rf "$D/T"; cp -a "$D/S" "$D/T"
    EXARAID_KILL_AT=$r EXARAID_KILL_IN_PLAN_ORDER=1 "$B" store ls "$D/T" >/dev/null 2>&1; k=$?
    "$B" store get "$D/T" torture >/dev/null 2>"$D/err"; rc=$?
    total=$((total+1))
    if [ $rc -ne 0 ]; then fails=$((fails+1)); echo "FAIL $w $r (ls rc $k): $(head -c 150 "$D/err")"; fi
  done
done
rm -rf "$D"
echo "total $total fails $fails"
