#!/bin/sh
# R14b-1 (review s14r2): a store made before session 14 (superblock header v2, absolute OSS
# paths), copied with `cp -a` with one of its inner OSS directories missing in the copy (a
# partial copy, a mount not there): the copy falls back to the ORIGINAL's OSS directory for
# that index (status lists it among the copy's own), its `put` exits 0 writing into the
# original's OSS and deleting the original file's objects there; the original is then
# refused ("older than its OSS directories") and, through the refusal's escape hatch, its
# file reads LOST although raid5 could have decoded the one column.
# Usage: EXARAID=new-binary OLD=pre-session-14-binary scripts/repro/repro-r14b-1.sh /dev/shm/x
set -u
E=${EXARAID:?new binary}; OLD=${OLD:?a binary from before session 14 (header v2 superblocks)}
D=${1:?scratch dir}; rm -rf "$D"; mkdir -p "$D"; cd "$D" || exit 1
"$OLD" store init o --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 20000 /dev/urandom > h.bin; "$OLD" store put o f < h.bin
head -c 5 o/superblock | od -c | head -1; grep -A1 '"oss_dirs"' o/superblock
cp -a o c; rm -rf c/oss-2          # the copy lacks one OSS directory
echo "== status of the copy (paths):"; "$E" store status c | awk '/^ *[0-9]/{print $1, $2, $NF}'
head -c 20000 /dev/urandom > h2.bin
"$E" store put c f < h2.bin; echo "copy put rc $?  (expected: refused, or OSS 2 missing/failed in the copy)"
"$E" store get o f > out.bin 2>err.txt; echo "original get rc $? (expected 0, bytes = h.bin)"; head -c 300 err.txt; echo
cmp -s out.bin h.bin && echo "original bytes intact" || echo "original bytes NOT readable"
