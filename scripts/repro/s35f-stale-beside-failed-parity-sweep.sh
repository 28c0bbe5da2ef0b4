#!/bin/sh
# s35f ("OPEN after session 34" (2)(f)): common/stale_cut.rs's scene (a stale cache element,
# a client write into its cache stripe cut by a power cut at every point) with P's OSS dead
# after the cut, over codes, writes and the out-of-order model's modes (pages mode tears
# blocks). One line per run: "S35F <code> write AT+LEN: N cuts, N problems, wrong N" and the
# number of cuts that name a loss (LOST-CUT lines; a loss is allowed there, WRONG is not).
# usage: PROBE=/path/to/s35f_failed_parity_oss_beside_a_stale_element_and_a_torn_cut_write-binary
#        [CODES="rs:4:3 raid6:4"] [WRITES="8192+4096 9192+600"] [MODES="none 16,1,pages"]
#        [FPS="0"] [STALES="1"] s35f-stale-beside-failed-parity-sweep.sh
# FPS: the failed parity's index (S35F_FAILED_PARITY; an index past the code's parities
# is skipped); STALES: 1 with the stale element, 0 the power cut alone (S35F_STALE, r38a:
# a rule's cost in right reads is the alone run's lost-cuts).
# Stores go to $TMPDIR (default /dev/shm); each run deletes its own. Run it under nice.
set -u
: "${PROBE:?set PROBE to the built s35f test binary}"
CODES=${CODES:-"rs:4:3 raid6:4"}
WRITES=${WRITES:-"8192+4096 9192+600"}
MODES=${MODES:-"none 16,1,pages"}
FPS=${FPS:-0}
STALES=${STALES:-1}
export TMPDIR=${TMPDIR:-/dev/shm}
parities() {
  case $1 in raid5:*) echo 1 ;; raid6:*) echo 2 ;; rs:*) echo "${1##*:}" ;; *) echo 1 ;; esac
}
for code in $CODES; do
 for fp in $FPS; do
  [ "$fp" -lt "$(parities "$code")" ] || continue
  for stale in $STALES; do
  for write in $WRITES; do
    for mode in $MODES; do
      if [ "$mode" = none ]; then ooo=""; else ooo="EXARAID_POWER_CUT_OUT_OF_ORDER=$mode"; fi
      out=$(env S35F_CODE=$code S35F_WRITE=$write S35F_FAILED_PARITY=$fp S35F_STALE=$stale \
        $ooo "$PROBE" --include-ignored --nocapture \
        --exact probe_stale_element_beside_a_failed_parity_oss_power_cut_code_of_env 2>&1)
      lost=$(printf '%s\n' "$out" | grep -c '^LOST-CUT')
      printf '%s\n' "$out" | grep '^S35F ' | sed "s/\$/, mode $mode, lost-cuts $lost/"
      printf '%s\n' "$out" | grep -m1 -A1 'panicked' | cut -c1-400
    done
  done
  done
 done
done
