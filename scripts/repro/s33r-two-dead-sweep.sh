#!/bin/sh
# s33r: runs review_s33r_two_failed_osss_cut's probe (`probe_power_cuts_beside_two_failed_osss`)
# over codes, pairs of dead OSSs, operations and writes: one line per (code, dead, op, write):
# "S33R <kind> <spec> dead [i, j] <Op> <at>+<len>: cuts N (kill-like N) wrong N losing N (kill-like N)"
# then the first wrong and first losing cut.
# usage: PROBE=/path/to/review_s33r_two_failed_osss_cut-binary [CODES="rs:4:3 rs:6:3"]
#        [DEADS="0,1 0,4 4,5"] [OPS="write flush end rebuild"] [WRITES="2296+3141,4000+200"]
#        s33r-two-dead-sweep.sh
# Stores go to $TMPDIR (default /dev/shm); each run deletes its own. Run it under nice.
set -u
: "${PROBE:?set PROBE to the built review_s33r_two_failed_osss_cut test binary}"
CODES=${CODES:-"rs:4:3 rs:6:3"}
DEADS=${DEADS:-"0,1 0,4 4,5"}
OPS=${OPS:-"write"}
WRITES=${WRITES:-"2296+3141,4000+200,100+4096,0+16384"}
export TMPDIR=${TMPDIR:-/dev/shm}
for code in $CODES; do
  for op in $OPS; do
    for dead in $DEADS; do
      env S33R_CODE=$code S33R_DEAD=$dead S33R_OP=$op S33R_WRITE=$WRITES \
        "$PROBE" --include-ignored --nocapture probe_power_cuts_beside_two_failed_osss 2>&1 \
        | grep -A2 '^S33R \|panicked\|^WRONG' | cut -c1-900
    done
  done
done
