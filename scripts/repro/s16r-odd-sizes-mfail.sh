#!/bin/bash
# s16r: files of odd sizes on rs k+m (m>=3) / raid6, m OSSs failed, degraded writes, rebuild, scrub.
# usage: EXARAID=... s16r-odd-sizes-mfail.sh DIR CODEARGS WRITEPATH FAILS
set -u
B="timeout 120 ${EXARAID:?}"; D=$1; CODE=$2; WP=$3; FAILS=$4
rm -rf $D; mkdir -p $D; cd $D
$B store init s $CODE --stripe-unit 4096 --write-path $WP >/dev/null || { echo init failed; exit 1; }
prob=0
chk() { # name
  $B store get s $1 > got.$1 2>err.$1; rc=$?
  if [ $rc != 0 ] || ! cmp -s got.$1 m.$1; then echo "PROBLEM $1 rc=$rc $(head -c 300 err.$1)"; prob=$((prob+1)); fi
}
SIZES="0 1 4095 4096 4097 16383 16384 16385 65535 65537 200001"
for sz in $SIZES; do head -c $sz /dev/urandom > m.f$sz; $B store put s f$sz < m.f$sz || echo "put f$sz rc $?"; done
# writes at odd places
for sz in $SIZES; do
  head -c 3 /dev/urandom > p; off=$(( sz>0 ? sz-1 : 0 ));
  $B store write s f$sz --offset $off < p || echo "write f$sz rc $?"
  python3 - m.f$sz $off p <<'PY'
import sys
f,off,p=sys.argv[1],int(sys.argv[2]),open(sys.argv[3],'rb').read()
b=bytearray(open(f,'rb').read());
if len(b)<off: b+=bytes(off-len(b))
b[off:off+len(p)]=p
open(f,'wb').write(b)
PY
done
for sz in $SIZES; do chk f$sz; done
for o in $FAILS; do $B store fail s --oss $o >/dev/null || echo "fail $o rc $?"; done
for sz in $SIZES; do chk f$sz; done
# degraded writes: grow past the end and inside
for sz in $SIZES; do
  head -c 5000 /dev/urandom > p; off=$(( sz + 4093 ))
  $B store write s f$sz --offset $off < p || echo "dwrite f$sz rc $?"
  python3 - m.f$sz $off p <<'PY'
import sys
f,off,p=sys.argv[1],int(sys.argv[2]),open(sys.argv[3],'rb').read()
b=bytearray(open(f,'rb').read());
if len(b)<off: b+=bytes(off-len(b))
b[off:off+len(p)]=p
open(f,'wb').write(b)
PY
done
$B store ls s --json > ls.json
for sz in $SIZES; do chk f$sz; done
$B store status s > st1.txt
for o in $FAILS; do $B store rebuild s --oss $o > rb.$o 2>&1 || { echo "rebuild $o rc $?"; cat rb.$o | head -5; }; done
for sz in $SIZES; do chk f$sz; done
$B store scrub s > scrub.txt 2>&1 || { echo "scrub rc $?"; head -5 scrub.txt; }
echo "problems=$prob"
