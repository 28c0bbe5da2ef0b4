#!/bin/bash
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
if [ "${NOFAIL:-0}" = 1 ]; then echo "control: no OSS failed"; else $E store fail $S --oss 2 >/dev/null; echo "fail rc $?"; fi
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
for c in "get $S b" "status $S" "ls $S" "read $S a --offset 0 --length 100"; do
  $E store $c > out 2>err; echo "$c: rc $? $(head -c 300 err)"; done
rm $D/mnt/filler; $E store get $S b | cmp - b && echo "room back: b exact"
umount $D/mnt
