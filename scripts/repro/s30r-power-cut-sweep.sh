#!/bin/bash
# Review s30r: POWER CUTS (not kills) through WCL client writes of one or two API writer
# threads, every code. Each run is the ignored probe
# `probe_power_cut_wcl_writers_code_of_env` of
# crates/store/tests/crash_images/review_s30r_power_cut_several_wcl_writers.rs: a put of two stripes, two
# acknowledged writes, then THREADS threads of WRITES writes each on disjoint ranges of home
# stripe 0 under the power-cut emulation (tests/common/powercut.rs: an image before every
# mutating backend call; per image the journal cut at every record boundary from its durable
# length, each OSS keeping or dropping its unsynced writes). At every cut: open, read every
# 4 KiB block (acknowledged bytes, or the in-flight write's), flush, read again. Prints per
# run: images, cuts, wrong (before/after the settle), losing cuts, and (build of 53f2f42+)
# how many losing cuts were kill-like (nothing dropped, the whole journal: a kill -9).
# A power cut is one fault: any loss is a finding.
# Env: THREADS (1 or 2, default "1 2"), CODES (default all), SEEDS (default 1,2,3,4,5,6),
#      PATHS (wcl, rmw, delayed; default wcl), PROBE (a built test binary; default: build it).
# Example: THREADS=1 CODES="raid5:4 dcode:5" scripts/repro/s30r-power-cut-sweep.sh
# Per-run knobs of the probe itself: S30R_KEEP=DIR keeps the first losing cut's disk (and
# DIR.kept: the same cut with no OSS dropped), with s30r-acked.bin, s30r-flight.bin,
# s30r-flight-mask.bin and s30r-what.txt; S30R_KILL_ONLY=1 keeps only a kill-like one;
# S30R_ALL=1 prints every losing cut.
set -u
THREADS=${THREADS:-"1 2"}
CODES=${CODES:-"raid5:4 raid6:4 rs:4:2 rs:4:3 hcode:5 xcode:5 rdp:5 evenodd:5 dcode:5 hdp:5"}
SEEDS=${SEEDS:-1,2,3,4,5,6}
PATHS=${PATHS:-wcl}
if [ -z "${PROBE:-}" ]; then
  PROBE=$(cargo test -p exaraid-store --test crash_images --no-run 2>&1 \
    | sed -n 's/.*Executable .*(\(.*\)).*/\1/p' | tail -1)
fi
echo "probe $PROBE sha256 $(sha256sum "$PROBE" | cut -d' ' -f1)"
for p in $PATHS; do for th in $THREADS; do for c in $CODES; do
  S30R_PATH=$p S30R_THREADS=$th S30R_CODE=$c S30R_SEEDS=$SEEDS \
    "$PROBE" --include-ignored --nocapture --test-threads 1 --exact review_s30r_power_cut_several_wcl_writers::probe_power_cut_wcl_writers_code_of_env 2>&1 \
    | grep -E "seed [0-9]+:|panicked" \
    | sed "s/^test review_s30r_power_cut_several_wcl_writers::probe_power_cut_wcl_writers_code_of_env ... //; s/^/$p threads $th $c /"
done; done; done
