#!/bin/sh
# s34r: power_cut_out_of_order_probes' one-write probe
# (`probe_out_of_order_cuts_of_one_write_code_of_env`) over codes, write paths, writes and
# the out-of-order model's modes, with NO stale element and no failed OSS (one power cut is
# the only fault: any LOST of an acknowledged byte is a finding, any WRONG the top one).
# One line per run: "OOO <kind> <path> dead None write AT+LEN <mode>: N images, N cuts,
# wrong N, lost N" then the first wrong and first lost cut.
# usage: PROBE=/path/to/power_cut_out_of_order_probes-binary [CODES="raid5:4 raid6:4"]
#        [PATHS="rmw delayed"] [WRITES="2296+3141 4000+200"] [MODES="16,1,only 16,1,pages,only"]
#        s34r-ooo-one-write-sweep.sh
# Stores go to $TMPDIR (default /dev/shm); each run deletes its own. Run it under nice.
set -u
: "${PROBE:?set PROBE to the built power_cut_out_of_order_probes test binary}"
CODES=${CODES:-"raid5:4 raid6:4 rs:4:2 xcode:5 dcode:5 hdp:5"}
PATHS=${PATHS:-"rmw"}
WRITES=${WRITES:-"2296+3141 4000+200"}
MODES=${MODES:-"16,1,only 16,1,pages,only"}
export TMPDIR=${TMPDIR:-/dev/shm}
for code in $CODES; do
  for path in $PATHS; do
    for write in $WRITES; do
      for mode in $MODES; do
        env OOO_CODE=$code OOO_PATH=$path OOO_WRITE=$write EXARAID_POWER_CUT_OUT_OF_ORDER=$mode \
          ${OOO_DEAD:+OOO_DEAD=$OOO_DEAD} \
          "$PROBE" --include-ignored --nocapture --exact probe_out_of_order_cuts_of_one_write_code_of_env 2>&1 \
          | grep -A2 '^OOO \|panicked' | cut -c1-700
      done
    done
  done
done
