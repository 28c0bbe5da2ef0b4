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
