#!/usr/bin/env bash
# Merge review s18m M18-2: s18c's "fallocate EIO fails the OSS" inside an open delayed window.
# A write whose reservation meets EIO on OSS 3 records OSS 3 failed (s18c), which records the
# window's earlier, acknowledged, still readable cached bytes on OSS 3 LOST; the write is then
# refused as "nothing of it was written" (its bytes would go to the failed OSS) and its message
# says neither that OSS 3 was recorded failed nor that bytes 12288..16384 are now lost.
# Usage: repro-m18-2.sh [EXARAID_BIN]   (default: target/release/exaraid)
set -euo pipefail
X=${1:-target/release/exaraid}
S=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d /dev/shm/m18-2.XXXX); trap 'rm -rf "$W"' EXIT
gcc -shared -fPIC -O1 -o "$W/shim.so" "$S/s17r-nospc-shim.c" -ldl
D=$W/d
"$X" store init "$D" --oss 5 --code raid5 --write-path delayed --stripe-unit 4096
head -c 65536 /dev/urandom > "$W/a0"; "$X" store put "$D" a < "$W/a0"
T=$("$X" store delayed start "$D" a)
head -c 16384 /dev/urandom > "$W/w1"; "$X" store write "$D" a --offset 0 < "$W/w1"   # acknowledged, cached
head -c 262144 /dev/urandom > "$W/w3"
set +e
LD_PRELOAD="$W/shim.so" NOSPCFILE=oss-3/objects NOSPCAFTER=0 NOSPCERRNO=5 NOSPCKIND=falloc \
  "$X" store write "$D" a --offset 65536 < "$W/w3"
echo "write rc=$? (got: refused, message silent on OSS 3 failed and on the loss below)"
"$X" store status "$D" | grep -E 'FAILED|LOST'
ls -l "$D/oss-3/objects/"*.cache   # the lost bytes' only copy, still on a readable disk
"$X" store delayed end "$D" "$T"; echo "end rc=$? (END names the loss)"
