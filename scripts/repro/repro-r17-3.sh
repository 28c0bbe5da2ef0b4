#!/bin/bash
# R17-3: a delayed window whose timeout is due when the METADATA disk is full: the timeout fires
# at the next command's open (CLI), its END must journal, the disk refuses: are get/status/ls refused?
# Controls: FULLOSS=1 (OSS 0 on the tmpfs, the store dir elsewhere), NODUE=1 (the same, before the timeout is due): reads work.
# Needs root. usage: EXARAID=... [NODUE=1|FULLOSS=1] repro-r17-3.sh DIR
set -u; E="timeout 60 ${EXARAID:?}"; D=$1
umount $D/mnt 2>/dev/null; rm -rf $D; mkdir -p $D/mnt; cd $D
mount -t tmpfs -o size=2m tmpfs $D/mnt
if [ "${FULLOSS:-0}" = 1 ]; then MS=$D/s; DIRS=$D/mnt/o0,$(echo $D/o{1..6} | tr ' ' ,); echo "control: OSS 0's disk full instead"; else MS=$D/mnt/s; DIRS=$(echo $D/o{0..6} | tr ' ' ,); fi
$E store init $MS --oss-dirs $DIRS --code rs --k 4 --m 3 --stripe-unit 4096 --write-path delayed --window-timeout-ms 1500 >/dev/null
S=$MS
head -c 70000 /dev/urandom > a; $E store put $S a < a; cp a model
head -c 5000 /dev/urandom > b; $E store put $S b < b
tok=$($E store delayed start $S a)
for off in 1000 30000 52000; do head -c 9000 /dev/urandom > w; $E store write $S a --offset $off < w
  python3 -c "import sys;m=bytearray(open('model','rb').read());w=open('w','rb').read();m[$off:$off+len(w)]=w;open('model','wb').write(m)"; done
python3 - $D/mnt/filler <<'PY'
import os,sys
fd=os.open(sys.argv[1],os.O_WRONLY|os.O_CREAT,0o644)
for c in (65536,4096,1):
    while True:
        try:
            if os.write(fd,b"\0"*c)<c: break
        except OSError: break
PY
df -k $D/mnt | tail -1
if [ "${NODUE:-0}" = 1 ]; then echo "control: the timeout is not due yet"; else sleep 2; fi   # the window's timeout is due now
for c in "get $S b" "status $S" "ls $S" "get $S a"; do
  $E store $c > out 2>err; echo "$c: rc $? $(head -c 300 err)"; done
cmp out model && echo "a exact"
rm $D/mnt/filler; $E store get $S a | cmp - model && echo "room back: a exact"; $E store status $S | tail -3
umount $D/mnt
