#!/bin/bash
# Repro (s7d): the fdatasync of an OSS fails (EIO, sticky: the disk keeps failing) inside the
# settle of `store rm` of a WCL file with cached bytes. Before session 7 the rm failed with
# the bare error and every later command failed the same way while the fsync did (the settle
# was redone at every open); now the OSS is recorded failed, rm exits 0 with a warning, and
# the store works degraded until `rebuild`.
# Usage: repro-settle-fsync-eio.sh FAILN   (27..29 hit the settle's fdatasyncs with this
# build; the shim prints the call it fails). Needs: gcc -O2 -shared -fPIC -o $SHIM
# scripts/eioshim.c -ldl. Env: EXARAID (binary), SHIM (the .so), REPRO_DIR (scratch dir).
set -u
X=${EXARAID:-target/debug/exaraid}
SHIM=${SHIM:-/tmp/eioshim.so}
D=${REPRO_DIR:-/tmp/repro-settle-fsync-eio}/$1
rm -rf "$D"; mkdir -p "$D"
$X store init "$D/s" --oss 4 --code raid5 --stripe-unit 4096 --write-path wcl >/dev/null
head -c 40000 /dev/urandom > "$D/f.bin"
$X store put "$D/s" f < "$D/f.bin"
head -c 3000 /dev/urandom > "$D/w.bin"
$X store write "$D/s" f --offset 5000 < "$D/w.bin"
head -c 9000 /dev/urandom > "$D/g.bin"
$X store put "$D/s" g < "$D/g.bin"
LD_PRELOAD=$SHIM FAILN=$1 FAILSTICKY=1 $X store rm "$D/s" f; echo "rm exit $?"
$X store status "$D/s"; echo "status exit $?"
$X store get "$D/s" g | cmp - "$D/g.bin" && echo "g reads back"
