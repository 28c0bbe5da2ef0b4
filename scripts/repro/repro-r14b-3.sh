#!/bin/sh
# R14b-3 (review s14r2): `rebuild --oss 3 --to /new/disk/oss-3` (moving an OSS to a new disk,
# the guide's own `rebuild ... --to` with a directory named like the old one) on a store made
# with `init DIR --oss N`: "OSS 3 rebuilt", the superblock names /new/disk/oss-3, but every
# later open uses the OLD directory DIR/oss-3 (left in place, it still carries the store's
# label for index 3): superblock.rs moved_oss_dir() swaps any absolute OSS path P/NAME for
# DIR/NAME when that is labelled, also on v3 superblocks. The old directory is rolled back
# (generation), so the OSS is UNAVAILABLE / failed right after its rebuild: redundancy gone
# without a word from `rebuild`, the rebuilt directory never used; the next write records it
# failed again, and the advice (`rebuild --oss 3`) rebuilds into the old directory.
# Usage: EXARAID=bin [OLD=pre-session-14 bin: makes the store, header v2] scripts/repro/repro-r14b-3.sh /dev/shm/x
# (main 909a69f alone: OSS 3 ok at newdisk/oss-3)
set -u
E=${EXARAID:?}; D=${1:?scratch dir}; rm -rf "$D"; mkdir -p "$D/newdisk"; cd "$D" || exit 1
"${OLD:-$E}" store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 30000 /dev/urandom > a.bin; head -c 30000 /dev/urandom > b.bin
"$E" store put s f < a.bin
"$E" store fail s --oss 3 >/dev/null
"$E" store put s f < b.bin
"$E" store rebuild s --oss 3 --to "$D/newdisk/oss-3"; echo "rebuild rc $?"
grep -A6 '"oss_dirs"' s/superblock | tr -d '\n '; echo
echo "== status right after the rebuild (expected: OSS 3 ok at $D/newdisk/oss-3):"
"$E" store status s | awk '/^ *[0-9]/{print $1, $2, $NF}'
"$E" store status s | grep -E "UNAVAILABLE|MISSING" | cut -c1-200
echo x | "$E" store write s f --offset 0; echo "write rc $?"
"$E" store status s | awk '/^ *3 /{print "after a write: OSS", $1, $2, $NF}'
