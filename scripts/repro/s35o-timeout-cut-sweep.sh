#!/bin/sh
# s35o (review s34r R34-4): a delayed window's TIMEOUT parity (`tick` after the timeout, END
# never sent) cut by one power cut, with no disk lost or OSS `LOST` lost at the cut, under
# the all-or-none model ("none") and the out-of-order modes: review_s34r_out_of_order_home_
# blocks' probe (`probe_one_power_cut_of_env`, S34R_OP=timeout). A WRONG byte panics the
# probe (the line then says so). One line per run: "<mode> lost <K> S34R <kind> Timeout ..:
# N images, N cuts, N losing (N kill-like), N open refused; first ..".
# usage: PROBE=/path/to/review_s34r_out_of_order_home_blocks-binary [CODES="xcode:5"]
#        [LOSTS="none 3"] [MODES="none 16,1,only 16,1,pages,only"] s35o-timeout-cut-sweep.sh
# Stores go to $TMPDIR (default /dev/shm); each run deletes its own. Run it under nice.
# Timing: the probe's setup must beat a 1.5 s window timeout (asserted).
set -u
: "${PROBE:?set PROBE to the built review_s34r_out_of_order_home_blocks test binary}"
CODES=${CODES:-"raid5:4 raid6:4 rs:4:2 xcode:5 dcode:5 hdp:5"}
LOSTS=${LOSTS:-"none 3"}
MODES=${MODES:-"none 16,1,only 16,1,pages,only"}
export TMPDIR=${TMPDIR:-/dev/shm}
for code in $CODES; do
  for lost in $LOSTS; do
    for mode in $MODES; do
      if [ "$mode" = none ]; then M=""; else M="EXARAID_POWER_CUT_OUT_OF_ORDER=$mode"; fi
      if [ "$lost" = none ]; then L=""; else L="S34R_LOST=$lost"; fi
      env $M $L S34R_CODE=$code S34R_OP=timeout S34R_WRITE=2296+3141 \
        "$PROBE" --include-ignored --nocapture --exact probe_one_power_cut_of_env 2>&1 \
        | grep '^S34R \|panicked' | sed "s/^/$mode lost $lost /" | cut -c1-400
    done
  done
done
