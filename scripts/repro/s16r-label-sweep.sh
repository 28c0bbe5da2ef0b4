#!/bin/bash
# s16r: flip one bit (mask M) at every byte of OSS 1's label (exaraid-oss.json), then get (and a write + get)
# usage: EXARAID=... s16r-label-sweep.sh DIR [MASK=1] [WP=wcl]
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; MASK=${2:-1}; WP=${3:-wcl}
rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null; head -c 50000 /dev/urandom > f; $B store put s f < f
cp -a s clean
L=s/oss-1/exaraid-oss.json; n=$(stat -c %s $L)
for ((i=0;i<n;i++)); do
  rm -rf s; cp -a clean s
  python3 -c "import sys;p='$L';b=bytearray(open(p,'rb').read());b[$i]^=$MASK;open(p,'wb').write(b)"
  $B store get s f > got 2>err; rc=$?
  if [ $rc = 0 ] && ! cmp -s got f; then echo "i=$i WRONG get"; fi
  head -c 3000 /dev/urandom > p; $B store write s f --offset 5000 < p 2>werr; wrc=$?
  cp f exp; [ $wrc = 0 ] && python3 -c "b=bytearray(open('exp','rb').read());b[5000:8000]=open('p','rb').read();open('exp','wb').write(b)"
  $B store get s f > got2 2>err2; rc2=$?
  if [ $rc2 = 0 ] && ! cmp -s got2 exp; then echo "i=$i WRONG after write (wrc=$wrc)"; fi
  st=$($B store status s 2>&1 | awk '$1=="1"{print $2}')
  echo "i=$i byte=$(head -c $((i+1)) clean/oss-1/exaraid-oss.json | tail -c 1 | xxd -p) get=$rc write=$wrc get2=$rc2 oss1=$st $(head -c 120 err | tr '\n' ' ')"
done
