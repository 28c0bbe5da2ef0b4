#!/bin/bash
# s16r2: flip one bit (XOR $3, default 1) at every byte of OSS 1's exaraid-extents.log (6 files put, 48-byte
# records), then get every file (must be exact or refused loudly), a write, get again, status.
# usage: EXARAID=... s16r2-extlog-sweep.sh DIR [WP] [MASK] [STEP]
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; WP=${2:-rmw}; M=${3:-1}; ST=${4:-1}; rm -rf $D; mkdir -p $D; cd $D
$B store init s0 --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
for i in 1 2 3 4 5 6; do head -c $((i*7000)) /dev/urandom > e$i; $B store put s0 e$i < e$i; done
L=$(stat -c %s s0/oss-1/exaraid-extents.log); echo "log $L bytes"
declare -A tally
for ((o=0; o<L; o+=ST)); do
  rm -rf s; cp -a s0 s
  python3 -c "import sys;p=sys.argv[1];o=int(sys.argv[2]);b=bytearray(open(p,'rb').read());b[o]^=int(sys.argv[3]);open(p,'wb').write(b)" s/oss-1/exaraid-extents.log $o $M
  res=""
  for i in 1 2 3 4 5 6; do $B store get s e$i > got 2>err; rc=$?
    if [ $rc -eq 0 ]; then cmp -s got e$i && res+="." || { res+="W"; echo "WRONG BYTES: offset $o file e$i"; }; else res+="r"; fi; done
  head -c 3000 /dev/urandom > w; $B store write s e6 --offset 100 < w 2>werr; wrc=$?
  python3 -c "import sys;m=bytearray(open('e6','rb').read());m[100:3100]=open('w','rb').read();open('e6x','wb').write(m)"
  $B store get s e6 > got 2>/dev/null; g2=$?; if [ $wrc -eq 0 ]; then cmp -s got e6x || { res+="W2"; echo "WRONG BYTES after write: offset $o"; }; fi
  st=$($B store status s 2>&1 | grep -E "^ +1 " | awk '{print $2}')
  key="$res w$wrc g$g2 $st"; tally[$key]=$(( ${tally[$key]:-0} + 1 ))
  [ "$res" != "......" ] && echo "o=$o $key $(head -c 200 err)"
done
for k in "${!tally[@]}"; do echo "${tally[$k]}x $k"; done
