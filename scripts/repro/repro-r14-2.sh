#!/bin/bash
# Review s14r R14-2: the refusal "the store's state and journal are older than its OSS
# directories" ends with the advice "If those are gone for good, removing exaraid-epoch.json
# from every OSS directory opens the store as it is: bytes written since this metadata was
# current then read back stale or as lost (run `exaraid store scrub DIR` then)". Followed
# after an older copy of the metadata was put back, a file REPLACED (put) or REMOVED (rm)
# since that copy reads as ALL ZEROS with exit 0, and scrub says clean (exit 0): neither
# stale nor named lost. (The OSSs' extents records say the old objects were never written,
# so the reads skip them; a zone file deleted by hand, extents intact, is reported corrupt.)
# Usage: EXARAID=path/to/exaraid repro-r14-2.sh [SCRATCH]
set -u
E=${EXARAID:-exaraid}; D=${1:-/tmp/s14r-r14-2}
rm -rf "$D"; mkdir -p "$D"; cd "$D"
head -c 40000 /dev/urandom > a; head -c 30000 /dev/urandom > b
$E store init ./y --oss 5 --code raid6 --stripe-unit 4096 --write-path rmw >/dev/null
$E store put ./y f < a; $E store put ./y g < a
mkdir bak; cp -a y/superblock y/state y/journal bak/      # a backup of the metadata
$E store put ./y f < b; $E store rm ./y g                 # f replaced, g removed
cp -a bak/* y/                                            # the newest metadata is lost; the backup is put back
$E store get ./y f >/dev/null 2>err; echo "refused: rc=$? ($(head -c 120 err)...)"
rm y/oss-*/exaraid-epoch.json                             # the refusal's own last advice
for n in f g; do
  $E store get ./y $n > out; rc=$?
  echo "get $n rc=$rc: $(wc -c < out) bytes, $(tr -d '\0' < out | wc -c) non-zero (expected: the old bytes, or refused naming them lost)"
done
$E store scrub ./y; echo "scrub rc=$? (expected: the lost bytes named, exit 2)"
echo "=== then: a new file reuses a file id of the lost metadata (its objects are still on the OSSs)"
head -c 5000 /dev/urandom > h5; $E store put ./y h < h5
printf 'TAIL' | $E store write ./y h --offset 20000        # leaves a hole 5000..20000
echo "read of the hole (expected zeros): $($E store read ./y h --offset 5000 --length 15000 | tr -d '\0' | wc -c) non-zero bytes"
echo "get's bytes of the hole:           $($E store get ./y h | tail -c +5001 | head -c 15000 | tr -d '\0' | wc -c) non-zero bytes"
