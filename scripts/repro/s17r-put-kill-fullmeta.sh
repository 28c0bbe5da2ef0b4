#!/bin/bash
# s17r: a `put` killed -9 part-way (its staging file left for the next open to drop), then the
# METADATA disk full: get/ls/status of the other files must keep working (docs: full metadata disk).
# Needs root. usage: EXARAID=... s17r-put-kill-fullmeta.sh DIR [WP=rmw] [DELAY=0.3]
set -u; E=${EXARAID:?}; D=$1; WP=${2:-rmw}; DELAY=${3:-0.3}
umount $D/mnt 2>/dev/null; rm -rf $D; mkdir -p $D/mnt; cd $D
mount -t tmpfs -o size=1m tmpfs $D/mnt
$E store init $D/mnt/s --oss-dirs $(echo $D/o{0..5} | tr ' ' ,) --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
S=$D/mnt/s
head -c 5000 /dev/urandom > b; $E store put $S b < b
head -c 100000000 /dev/urandom > big
$E store put $S big < big & p=$!; sleep $DELAY; kill -9 $p; wait $p 2>/dev/null
python3 - $D/mnt/filler <<'PY'
import os,sys
fd=os.open(sys.argv[1],os.O_WRONLY|os.O_CREAT,0o644)
for c in (65536,4096,1):
    while True:
        try:
            if os.write(fd,b"\0"*c)<c: break
        except OSError: break
PY
for c in "get $S b" "status $S" "ls $S"; do timeout 60 $E store $c > out 2>err; echo "$c: rc $? $(head -c 300 err)"; done
rm $D/mnt/filler; $E store get $S b | cmp - b && echo "room back: b exact"; $E store ls $S
umount $D/mnt
