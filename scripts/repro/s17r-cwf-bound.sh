#!/bin/bash
# s17r: the changed-while-failed bound (s15i, 4,096 places): OSS 1 failed, N separate small writes
# (gaps between them), then `online --oss 1`: below the bound it takes every change back, past it
# it refuses and `rebuild` is needed; either way two OTHER OSSs then failed, every byte exact.
# usage: EXARAID=... s17r-cwf-bound.sh DIR N [WP=rmw]
set -u; E=${EXARAID:?}; D=$1; N=$2; WP=${3:-rmw}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
head -c $((N*8192+8192)) /dev/urandom > model; $E store put s f < model
$E store fail s --oss 1 >/dev/null
python3 - "$E" "$N" <<'PY'
import subprocess, sys, os
E, N = sys.argv[1], int(sys.argv[2]); m = bytearray(open('model','rb').read())
for i in range(N):
    d = os.urandom(100); off = i * 8192 + 17
    r = subprocess.run([E, "store", "write", "s", "f", "--offset", str(off)], input=d, capture_output=True)
    if r.returncode == 0: m[off:off+100] = d
    else: print("write refused", r.stderr[:200]); break
open('model','wb').write(m)
PY
$E store online s --oss 1 > on.out 2>&1; rc=$?; echo "online rc $rc: $(head -c 300 on.out)"
[ $rc = 0 ] || { $E store rebuild s --oss 1 > rb.out 2>&1; echo "rebuild rc $?"; }
$E store fail s --oss 0 >/dev/null; $E store fail s --oss 2 >/dev/null
$E store get s f > got 2>err; echo "get (OSS 0, 2 failed) rc $? $(head -c 200 err)"; cmp got model && echo EXACT || echo "WRONG: $(cmp -l got model | wc -l) bytes"
