#!/bin/bash
# Review s14r R14-1: `cp -a` of a store made with `--oss N` (OSS directories inside the store
# directory, the default) gives a copy whose superblock names the ORIGINAL's OSS directories
# (absolute paths). The copy's first `put` exits 0 and writes into the original's OSSs,
# deleting the objects of the original's file; the original then refuses every command as
# "older than its OSS directories", and the refusal's last advice (remove exaraid-epoch.json)
# makes the original's file read ZEROS with exit 0, scrub clean (the guide says "stale or lost").
# Usage: EXARAID=path/to/exaraid repro-r14-1.sh [SCRATCH]
set -u
E=${EXARAID:-exaraid}; D=${1:-/tmp/s14r-r14-1}
rm -rf "$D"; mkdir -p "$D"; cd "$D"
$E store init ./t --oss 3 --code raid5 --stripe-unit 4096 >/dev/null
echo one | $E store put ./t f
cp -a t tc                       # "a copy of the store to experiment on"
echo two | $E store put ./tc f; echo "put into the COPY: rc=$?"
echo "--- the copy's OSS 0 path (status):"; $E store status ./tc | grep oss-0
echo "--- the original:"; $E store get ./t f; echo "get original rc=$?"
echo "--- following the refusal's last advice (remove exaraid-epoch.json from every OSS):"
rm -f t/oss-*/exaraid-epoch.json
$E store get ./t f | xxd; echo "get original rc=${PIPESTATUS[0]} (expected: 'one', or refused naming f LOST)"
$E store scrub ./t; echo "scrub rc=$?"
echo "=== variant: a whole backup (cp -a of the store directory, which holds its OSSs) read where it is"
rm -rf t2 t2bak; $E store init ./t2 --oss 3 --code raid5 --stripe-unit 4096 >/dev/null
echo one | $E store put ./t2 f; cp -a t2 t2bak; echo two | $E store put ./t2 f
$E store get ./t2bak f; echo "get from the backup rc=$? (its own t2bak/oss-* hold 'one', unused: $(ls t2bak/oss-0/objects))"
echo "=== variant: mv of the store"
rm -rf t3 t3moved; $E store init ./t3 --oss 3 --code raid5 --stripe-unit 4096 >/dev/null; echo one | $E store put ./t3 f; mv t3 t3moved
$E store get ./t3moved f; echo "get rc=$?"; $E store status ./t3moved | grep MISSING | head -1
