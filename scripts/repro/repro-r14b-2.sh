#!/bin/sh
# R14b-2 (review s14r2): on a store made by this binary (superblock v3) with --oss-dirs OUTSIDE
# the store directory, a directory inside the store directory with the same name as a recorded
# OSS directory and this store's label (an admin's `cp -a` of that OSS kept beside the
# metadata, e.g. before a disk swap) silently replaces the recorded OSS: status lists it as OSS
# 1, writes go there (the metadata disk); removing that copy later leaves the real OSS 1
# rolled back (UNAVAILABLE, one tolerance gone). The session-14 fallback for moved pre-v3
# stores (superblock.rs moved_oss_dir) also runs for absolute paths in v3 superblocks.
# Usage: EXARAID=bin scripts/repro/repro-r14b-2.sh /dev/shm/x
set -u
E=${EXARAID:?}; D=${1:?scratch dir}; rm -rf "$D"; mkdir -p "$D/disks"; cd "$D" || exit 1
"$E" store init s --oss-dirs "$D/disks/oss-0,$D/disks/oss-1,$D/disks/oss-2,$D/disks/oss-3,$D/disks/oss-4" --code raid5 --stripe-unit 4096 >/dev/null
head -c 30000 /dev/urandom > a.bin; head -c 30000 /dev/urandom > b.bin
"$E" store put s f < a.bin
cp -a disks/oss-1 s/oss-1               # a backup copy of OSS 1 kept in the store directory
"$E" store put s f < b.bin; echo "put rc $?"
echo "== OSS paths the store now uses (expected: all under $D/disks):"
"$E" store status s | awk '/^ *[0-9]/{print $1, $2, $NF}'
rm -rf s/oss-1                          # the backup removed
"$E" store status s 2>&1 | grep -E "UNAVAILABLE|MISSING" | cut -c1-220
"$E" store get s f | cmp - b.bin && echo "bytes right (degraded)"
