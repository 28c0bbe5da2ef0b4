#!/bin/bash
# R17-1: a window's END refused for room (one OSS's disk full) with another OSS failed inside the
# window leaves the store unopenable for EVERY command (get, read, status, ls) until room comes
# back; docs: "the cached bytes stay readable in the cache zone, and the next command does not redo it".
# AWAY=1: OSS 2's directory moved away (unmounted) instead of `fail`.
# Needs root (a 2 MiB tmpfs for OSS 0). usage: EXARAID=... [AWAY=1] repro-r17-1.sh DIR
set -u; E="timeout 60 ${EXARAID:?}"; D=$1
umount $D/mnt 2>/dev/null; rm -rf $D; mkdir -p $D/mnt; cd $D
mount -t tmpfs -o size=2m tmpfs $D/mnt
$E store init s --oss-dirs $D/mnt/o0,$(echo $D/o{1..6} | tr ' ' ,) --code rs --k 4 --m 3 --stripe-unit 4096 --write-path delayed >/dev/null
head -c 70000 /dev/urandom > a; $E store put s a < a; cp a model
head -c 5000 /dev/urandom > b; $E store put s b < b   # a file with no bytes waiting for parity
tok=$($E store delayed start s a)
for off in 1000 30000 52000; do head -c 9000 /dev/urandom > w; $E store write s a --offset $off < w
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
if [ "${AWAY:-0}" = 1 ]; then mv $D/o2 $D/o2.away; echo "OSS 2 dir moved away (unmounted)"; else $E store fail s --oss 2; echo "fail rc $?"; fi
$E store status s >/dev/null 2>err; echo "status after fail, before END: rc $? $(head -c 200 err)"
$E store delayed end s $tok; echo "END rc $? (refused for room: fine)"
for c in "get s b" "get s a" "read s a --offset 0 --length 100" "status s" "ls s" "rm s b" "online s --oss 2" "flush s"; do
  $E store $c > out 2>err; echo "$c: rc $? $(head -c 400 err)"; done
echo "--- room back (filler removed)"
rm $D/mnt/filler
$E store get s b | cmp - b && echo "get b exact"
$E store get s a > got 2>err; echo "get a rc $? (expected 1 naming only OSS 2's window bytes) $(head -c 300 err)"
$E store status s | grep LOST
umount $D/mnt
