#!/bin/bash
# (killed commands run $EXARAID directly, not via timeout: kill -9 must hit exaraid itself)
# s16r2: one OSS directory away (renamed: an unmounted disk) while N writing commands run, some killed -9
# at a random instant; then the directory comes back: every acked byte must read, status must be sane,
# scrub after rebuild/online clean. usage: EXARAID=... s16r2-away-lineage.sh DIR WP N KILLEVERY
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; WP=$2; N=$3; KE=$4; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
head -c 30000 /dev/urandom > f; $B store put s f < f; cp f model
mv s/oss-1 away1
for i in $(seq 1 $N); do
  off=$((RANDOM % 25000)); head -c $((RANDOM % 3000 + 1)) /dev/urandom > w
  if [ $((i % KE)) -eq 0 ]; then
    $EXARAID store write s f --offset $off < w & p=$!; sleep 0.0$((RANDOM % 9)); kill -9 $p 2>/dev/null; wait $p 2>/dev/null
    $B store get s f > model 2>/dev/null || { echo "get after kill failed at $i"; $B store get s f 2>&1 >/dev/null | head -c 300; exit 1; }
  else
    if $B store write s f --offset $off < w 2>err; then
      python3 -c "import sys;m=bytearray(open('model','rb').read());w=open('w','rb').read();o=int(sys.argv[1]);m[o:o+len(w)]=w;open('model','wb').write(m)" $off
    else echo "write $i rc: $(head -c 200 err)"; fi
  fi
done
$B store status s | grep -E "^ +1 |UNAV|EPOCH|FAIL" | cut -c1-250
mv away1 s/oss-1
echo "--- OSS 1 back"
$B store status s | grep -E "^ +1 |UNAV|EPOCH|FAIL|MISS" | cut -c1-300
$B store get s f | cmp - model; echo "get cmp rc $?"
$B store scrub s | tail -2
$B store online s --oss 1 2>&1 | tail -2 | cut -c1-300; $B store rebuild s --oss 1 2>&1 | tail -1 | cut -c1-300
$B store get s f | cmp - model; echo "get cmp rc $?"; $B store scrub s | tail -1
