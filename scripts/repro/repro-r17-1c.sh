#!/bin/bash
# Control for R17-1b (CLEAN on 0566b25): the OSS goes missing (unmounted) only AFTER the metadata disk filled; reads work.
# R17-1b: as R17-1, but the full disk is the METADATA disk (store dir on a small tmpfs; OSSs
# elsewhere) and it fills after `fail` (which had room): every later command is refused?
# Needs root. usage: EXARAID=... repro-r17-1b.sh DIR
set -u; E="timeout 60 ${EXARAID:?}"; D=$1
umount $D/mnt 2>/dev/null; rm -rf $D; mkdir -p $D/mnt; cd $D
mount -t tmpfs -o size=1m tmpfs $D/mnt
$E store init $D/mnt/s --oss-dirs $(echo $D/o{0..6} | tr ' ' ,) --code rs --k 4 --m 3 --stripe-unit 4096 --write-path delayed >/dev/null
S=$D/mnt/s
head -c 70000 /dev/urandom > a; $E store put $S a < a
head -c 5000 /dev/urandom > b; $E store put $S b < b
tok=$($E store delayed start $S a)
for off in 1000 30000 52000; do head -c 9000 /dev/urandom > w; $E store write $S a --offset $off < w; done
echo "no fail yet"
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
mv $D/o2 $D/o2.away; echo "OSS 2 dir away (unmounted) while the metadata disk is full"
for c in "get $S b" "status $S" "ls $S" "read $S a --offset 0 --length 100"; do
  $E store $c > out 2>err; echo "$c: rc $? $(head -c 300 err)"; done
mv $D/o2.away $D/o2; rm $D/mnt/filler; $E store get $S b | cmp - b && echo "room back: b exact"
umount $D/mnt
