#!/bin/sh
# s32r: runs review_s32r_power_cut_degraded_and_mixed's multi-writer probe
# (`probe_power_cut_degraded_writers_code_of_env`) over codes, paths, dead OSSs and seeds, one
# line per run: "S32R <code> <path> dead <oss> mix <bool> seed <n>: <images> images, <cuts>
# cuts: wrong <before>/<after settle>/<after rebuild> lost <n> (kill-like <n>) ...".
# usage: PROBE=/path/to/test-binary [CODES="raid6:4 rs:4:2"] [PATHS="wcl delayed"]
#        [DEADS="0 1 2 4"; "none": no failed OSS] [SEEDS="1,2"] [THREADS=2] [MIX=1] [FLUSH=1] [GONE=1] [REBUILD=1]
#        s32r-power-cut-degraded-sweep.sh
# Stores go to $TMPDIR (default /dev/shm); each run deletes its own. Run it under nice.
set -u
: "${PROBE:?set PROBE to the built review_s32r_power_cut_degraded_and_mixed binary}"
CODES=${CODES:-"raid6:4 rs:4:2 hcode:5 rdp:5 xcode:5 raid5:4"}
PATHS=${PATHS:-"wcl delayed"}
DEADS=${DEADS:-"0 1 2 4"}
SEEDS=${SEEDS:-"1,2"}
export TMPDIR=${TMPDIR:-/dev/shm}
for code in $CODES; do
  for path in $PATHS; do
    for dead in $DEADS; do
      deadenv=S32R_DEAD=$dead; [ "$dead" = none ] && deadenv=S32R_NO_DEAD=1
      env S32R_CODE=$code S32R_PATH=$path $deadenv S32R_SEEDS=$SEEDS \
        S32R_THREADS=${THREADS:-2} S32R_GONE=${GONE:-1} ${MIX:+S32R_MIX=$MIX} \
        ${FLUSH:+S32R_FLUSH=$FLUSH} ${REBUILD:+S32R_REBUILD=$REBUILD} \
        "$PROBE" --include-ignored --nocapture probe_power_cut_degraded_writers_code_of_env 2>&1 \
        | grep -A2 '^S32R \|panicked' | cut -c1-700
    done
  done
done
