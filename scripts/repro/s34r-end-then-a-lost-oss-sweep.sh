#!/bin/sh
# s34r: review_s33r_two_failed_osss_cut's probe (`probe_power_cuts_beside_two_failed_osss`)
# with NO failed OSS before the cut: a delayed window's END (or a `flush`) cut by one power
# cut, then OSS `THIRD` lost at every cut (a data column the window never touched: any LOST
# within the code's tolerance is a finding), under the all-or-none model ("none") and the
# out-of-order modes. One line per run: "<mode> S33R <kind> .. dead [] <Op> <at>+<len>: cuts N
# (kill-like N) wrong N losing N (kill-like N)" (under an out-of-order mode "kill-like"
# counts every out-of-order cut too: ignore it there) and the first losing cut.
# usage: PROBE=/path/to/review_s33r_two_failed_osss_cut-binary [CODES="raid5:4 raid6:4"]
#        [OPS="end"] [THIRDS="3"] [WRITES="2296+3141"] [MODES="none 16,1,only 16,1,pages,only"]
#        s34r-end-then-a-lost-oss-sweep.sh
# Stores go to $TMPDIR (default /dev/shm); each run deletes its own. Run it under nice.
set -u
: "${PROBE:?set PROBE to the built review_s33r_two_failed_osss_cut test binary}"
CODES=${CODES:-"raid5:4 raid6:4 rs:4:2 xcode:5 dcode:5 hdp:5"}
OPS=${OPS:-"end"}
THIRDS=${THIRDS:-"3"}
WRITES=${WRITES:-"2296+3141"}
MODES=${MODES:-"none 16,1,only 16,1,pages,only"}
export TMPDIR=${TMPDIR:-/dev/shm}
for code in $CODES; do
  for op in $OPS; do
    for third in $THIRDS; do
      for mode in $MODES; do
        if [ "$mode" = none ]; then M=""; else M="EXARAID_POWER_CUT_OUT_OF_ORDER=$mode"; fi
        env $M S33R_CODE=$code S33R_DEAD= S33R_THIRD=$third S33R_OP=$op S33R_WRITE=$WRITES \
          "$PROBE" --include-ignored --nocapture --exact probe_power_cuts_beside_two_failed_osss 2>&1 \
          | grep -A2 '^S33R \|^WRONG' | grep -v 'first wrong: $' | sed "s/^/$mode third $third /" | cut -c1-700
      done
    done
  done
done
