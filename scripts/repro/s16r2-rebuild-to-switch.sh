#!/bin/bash
# (killed commands run $EXARAID directly, not via timeout: kill -9 must hit exaraid itself)
# s16r2: `rebuild --oss 1 --to X` killed -9 at a random instant, then the rerun goes `--to Y` (the operator
# picked another disk), optionally a write between; then every byte, scrub, and the old X left behind.
# usage: EXARAID=... s16r2-rebuild-to-switch.sh DIR WP ROUNDS
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; WP=$2; R=$3; mkdir -p $D; cd $D
head -c ${SIZE:-300000} /dev/urandom > f
for r in $(seq 1 $R); do
  rm -rf s X Y; $B store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null; $B store put s f < f
  $B store fail s --oss 1 >/dev/null; cp f model
  head -c 5000 /dev/urandom > w; $B store write s f --offset 7000 < w; python3 -c "m=bytearray(open('model','rb').read());m[7000:12000]=open('w','rb').read();open('model','wb').write(m)"
  $EXARAID store rebuild s --oss 1 --to $D/X >/dev/null 2>&1 & p=$!; sleep ${SLEEPPRE:-0.}$((RANDOM % 10))$((RANDOM % 10)); kill -9 $p 2>/dev/null; wait $p 2>/dev/null
  out=$($B store rebuild s --oss 1 --to $D/Y 2>&1); rc=$?
  [ $rc -ne 0 ] && out2=$($B store rebuild s --oss 1 --to $D/X 2>&1) && true; [ $rc -ne 0 ] && echo "round $r: --to Y: $(echo $out | head -c 250)"
  $B store get s f | cmp -s - model || echo "round $r: WRONG/GET FAILED"
  sc=$($B store scrub s | tail -1); echo "$sc" | grep -q "corrupt elements: 0, corrupt cache elements: 0 (of [0-9]* checked), parity mismatches: 0" || echo "round $r: scrub $sc"
  st=$($B store status s | grep -E "^ +1 " | awk '{print $2, $NF}'); echo "round $r: rebuild-Y rc $rc; OSS 1 $st"
done
