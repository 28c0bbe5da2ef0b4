#!/bin/bash
# (killed commands run $EXARAID directly, not via timeout: kill -9 must hit exaraid itself)
# s16r2: `put` of a large file (> the 8 MiB piece) over an existing one, killed -9 at a random instant: the
# file must read wholly old or wholly new; scrub clean. usage: EXARAID=... s16r2-put-kill.sh DIR WP ROUNDS [SIZE]
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; WP=$2; R=$3; SZ=${4:-30000000}; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 65536 --write-path $WP >/dev/null
head -c $SZ /dev/urandom > a; $B store put s x < a; cur=a
for r in $(seq 1 $R); do
  head -c $(( SZ + RANDOM )) /dev/urandom > n$r
  $EXARAID store put s x < n$r & p=$!; sleep ${SLEEPPRE:-0.}$((RANDOM % 10))$((RANDOM % 10)); kill -9 $p 2>/dev/null; wait $p 2>/dev/null; rc=$?
  $B store get s x > got 2>err; g=$?
  if [ $g -ne 0 ]; then echo "round $r: get rc $g $(head -c 200 err)"; continue; fi
  if cmp -s got n$r; then res=new; cur=n$r; elif cmp -s got $cur; then res=old; else res=WRONG; echo "round $r: WRONG BYTES (put rc $rc)"; fi
  echo "round $r: put rc $rc -> $res"
done
$B store scrub s | tail -1; $B store status s | tail -3
