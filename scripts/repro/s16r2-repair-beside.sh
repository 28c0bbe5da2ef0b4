#!/bin/bash
# s16r2: a writer loop (disjoint files per writer: A writes a, B writes b), a `scrub --repair` loop, and bit
# flips into random zone files of random OSSs (one OSS at a time, so within raid6's tolerance) meanwhile;
# each writer keeps a model and checks its file after each write. usage: EXARAID=... s16r2-repair-beside.sh DIR WP SECS
set -u; B="timeout 120 ${EXARAID:?}"; D=$1; WP=$2; T=$3; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
for n in a b; do head -c 60000 /dev/urandom > m_$n; $B store put s $n < m_$n; done
end=$(( $(date +%s) + T ))
writer() { n=$1; i=0; while [ $(date +%s) -lt $end ]; do i=$((i+1)); off=$((RANDOM % 55000)); head -c $((RANDOM % 5000 + 1)) /dev/urandom > w_$n
  if $B store write s $n --offset $off < w_$n 2>e_$n; then python3 -c "import sys;m=bytearray(open('m_'+sys.argv[1],'rb').read());w=open('w_'+sys.argv[1],'rb').read();o=int(sys.argv[2]);m[o:o+len(w)]=w;open('m_'+sys.argv[1],'wb').write(m)" $n $off
  else echo "write $n rc: $(head -c 200 e_$n)"; fi
  $B store get s $n > g_$n 2>ge_$n; rc=$?; if [ $rc -ne 0 ]; then echo "GET $n rc $rc $(head -c 300 ge_$n)"; elif ! cmp -s g_$n m_$n; then echo "WRONG BYTES $n after write $i"; fi; done; echo "writer $n: $i writes"; }
scrubber() { k=0; while [ $(date +%s) -lt $end ]; do k=$((k+1)); $B store scrub s --repair > sc.out 2>&1; rc=$?; [ $rc -gt 2 ] && echo "scrub rc $rc"; grep -i "unrepairable\|lost" sc.out | head -2; done; echo "scrubs $k"; }
flipper() { while [ $(date +%s) -lt $end ]; do o=$((RANDOM % 6)); f=$(ls s/oss-$o/objects/* 2>/dev/null | shuf -n1); [ -n "$f" ] && python3 -c "
import sys,os,random;p=sys.argv[1];sz=os.path.getsize(p)
if sz:
  fd=os.open(p,os.O_RDWR);o=random.randrange(sz);b=os.pread(fd,1,o);os.pwrite(fd,bytes([b[0]^(1<<random.randrange(8))]),o);os.close(fd)" $f; sleep 0.7; done; }
writer a & writer b & scrubber & flipper & wait
$B store scrub s --repair | tail -1; $B store scrub s | tail -1
for n in a b; do $B store get s $n | cmp - m_$n && echo "$n exact"; done
