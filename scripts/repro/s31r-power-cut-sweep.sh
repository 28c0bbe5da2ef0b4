#!/bin/bash
# Review s31r: POWER CUTS (not kills) on the DELAYED path inside START_DELAYED .. END_DELAYED
# windows (writes acknowledged inside a window, then END's parity build, both cut), and a
# power cut plus ONE flipped bit of a cache block. Each run is the ignored probe
# `probe_power_cut_delayed_windows_code_of_env` of
# crates/store/tests/crash_images/review_s31r_power_cut_delayed_window_and_flip.rs (a copy of s30r's
# probe, extended): a put of two stripes, two acknowledged writes, then ROUNDS rounds of
# (START; THREADS threads of WRITES writes each on disjoint ranges of home stripe 0; END),
# all under the power-cut emulation (tests/common/powercut.rs). At every cut: open, read
# every 4 KiB block (acknowledged bytes, or the in-flight write's), flush, read again.
# A power cut alone is one fault: any loss is a finding. With FLIP=1 two faults: a loss
# is allowed, wrong bytes are not.
# Env: THREADS (default "1 2"), CODES (default raid5:4 raid6:4 rs:4:2 hcode:5 rdp:5 xcode:5),
#      SEEDS (default 1,2,3), PATHS (delayed, wcl, rmw; default delayed), FLIP ("" or 1,
#      default ""), PROBE (a built test binary; default: build it).
# Example: THREADS=1 CODES="raid5:4" FLIP=1 scripts/repro/s31r-power-cut-sweep.sh
# Per-run knobs of the probe: S31R_ROUNDS (default 2), S31R_WRITES (default 6),
# S31R_NO_END=1, S31R_KEEP=DIR, S31R_ALL=1 (see the probe's header).
set -u
THREADS=${THREADS:-"1 2"}
CODES=${CODES:-"raid5:4 raid6:4 rs:4:2 hcode:5 rdp:5 xcode:5"}
SEEDS=${SEEDS:-1,2,3}
PATHS=${PATHS:-delayed}
FLIP=${FLIP:-}
if [ -z "${PROBE:-}" ]; then
  PROBE=$(cargo test -p exaraid-store --test crash_images --no-run 2>&1 \
    | sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)
fi
echo "probe $PROBE sha256 $(sha256sum "$PROBE" | cut -d' ' -f1)"
for p in $PATHS; do for th in $THREADS; do for c in $CODES; do
  if [ -n "$FLIP" ]; then export S31R_FLIP=1; else unset S31R_FLIP; fi
  S31R_PATH=$p S31R_THREADS=$th S31R_CODE=$c S31R_SEEDS=$SEEDS \
    "$PROBE" --include-ignored --nocapture --test-threads 1 --exact review_s31r_power_cut_delayed_window_and_flip::probe_power_cut_delayed_windows_code_of_env 2>&1 \
    | grep -E "seed [0-9]+:|panicked|first (wrong|lost)" \
    | sed "s/^test review_s31r_power_cut_delayed_window_and_flip::probe_power_cut_delayed_windows_code_of_env ... //; s/^/$p flip=${FLIP:-0} threads $th $c /"
done; done; done
