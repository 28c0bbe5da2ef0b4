#!/bin/bash
# Review s12r R12-3 (availability + BAD ERROR): a WCL write killed -9 on a nearly full store
# (every OSS up) leaves a recovery that needs NEW room on an OSS (its settle writes into
# cache-zone / settle-copy ranges the cut write never allocated: strace shows a pwrite into
# objects/18446744073709551615.cache or a fallocate of objects/<id>.cache failing ENOSPC), so
# every later open is "open for reads only"; the message says to free space "or `exaraid
# store rm` a file that has no bytes waiting for parity, then retry", but `rm` (every change)
# is refused in that state with the same message: no way out through exaraid; the store stays
# read-only until the OSS file system grows.
# Reproduced with scripts/full-disk.py (dcode p=5 over five 1 MiB tmpfs OSSs, 64 KiB unit,
# WCL, seed 1: its 9th step, `write f4` killed at killshim call 33, the fdatasync of OSS 0's
# extents log). Needs root (mount), gcc. Usage: EXARAID=... repro-r12-3.sh [SCRATCH]
E=${EXARAID:-exaraid}; R=${1:-/tmp/repro-r12-3}; HERE=$(cd "$(dirname "$0")" && pwd)
SHIM=${SHIM:-/tmp/repro-r12-killshim.so}
[ -f "$SHIM" ] || gcc -O2 -shared -fPIC -o "$SHIM" "$HERE/../killshim.c" -ldl
for m in $R/m* $R/meta; do umount $m 2>/dev/null; done; rm -rf $R; mkdir -p $R
KEEP=1 EXARAID=$E SHIM=$SHIM S5S_DIR=$R CODE="dcode --p 5" NOSS=5 WPATH=wcl OSS_MB=1 \
  python3 "$HERE/../full-disk.py" 9 1 2>&1 | grep -v '^df:' | cut -c1-240
S=$R/meta/store
echo "== status:"; $E store status $S 2>&1 | cut -c1-300 | head -9
echo "== the advice: rm a file with no bytes waiting for parity"
for f in $($E store ls $S 2>/dev/null | awk '{print $2}'); do
  $E store rm $S $f > /dev/null 2> err; echo "rm $f rc=$?: $(head -c 200 err)"; done
echo "== what needs room (strace of an open):"
strace -f -e trace=pwrite64,fallocate,openat $E store ls $S 2>&1 | grep -B2 ENOSPC | cut -c1-160 | head -4
echo "(clean up: for m in $R/m*; do umount \$m; done)"
