#!/bin/sh
# R14b-5 (review s14r2): an `init DIR --oss N` store whose OSS 3 was put on its own disk the
# usual way (the directory moved there, a symlink DIR/oss-3 left; the superblock keeps the
# relative "oss-3"); `cp -a DIR COPY` copies the symlink, so COPY drives the ORIGINAL's OSS 3:
# the copy's put exits 0 and writes there, the original is refused for good ("older than its
# OSS directories"): R14-1's outcome, on the layout docs/store.md says `cp -a` copies safely.
# Usage: EXARAID=bin scripts/repro/repro-r14b-5.sh /dev/shm/x
set -u
E=${EXARAID:?}; D=${1:?scratch dir}; rm -rf "$D"; mkdir -p "$D/disk3"; cd "$D" || exit 1
"$E" store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 30000 /dev/urandom > a.bin; head -c 30000 /dev/urandom > b.bin
"$E" store put s f < a.bin
mv s/oss-3 disk3/oss-3; ln -s "$D/disk3/oss-3" s/oss-3        # OSS 3 on its own disk
"$E" store get s f | cmp -s - a.bin && echo "store with a symlinked OSS 3: reads right"
cp -a s c                                                   # "a second, independent store"
"$E" store put c f < b.bin; echo "copy put rc $?  (status of the copy: OSS 3 at $("$E" store status c | awk '/^ *3 /{print $NF}'))"
"$E" store get s f > out.bin 2>err.txt; echo "original get rc $? (expected 0 with a.bin): $(head -c 160 err.txt)"
