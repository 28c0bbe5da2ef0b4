#!/usr/bin/env bash
# Development tool, not part of run.sh or test.sh: runs the store's power-cut probes
# (ignored tests of the crash_images binary, each every cut of one scene) over named
# cells and writes one file per cell plus a summary, so two builds can be compared cut
# for cut (docs/store-log.md cites the cells by these names).
#
#   scripts/probe-cells.sh BIN OUT CELL...      BIN: a copy of a crash_images test binary
#                                               (target/debug/deps/crash_images-<hash>)
#   scripts/probe-cells.sh --list               the cell names
#   scripts/probe-cells.sh --compare A B        per cell: A's and B's summary, and whether
#                                               their LOST-CUT/PROBLEM lines are identical
#
# A cell is NAME-sS, S the seed of the out-of-order cuts. OUT/NAME-sS.txt holds the
# probe's stderr; OUT/summary.txt one line per cell ("cell: N cuts, W WRONG, L LOST").
# PROBE_JOBS (default 2) cells run at once.
set -euo pipefail

# name -> test filter and environment (the scene each session's reviews named).
cell_env() {
  local name=$1 seed=$2
  local r45d="review_r45d_stale_block_under_a_cut_write::probe_r45d"
  local r50a="review_r50a_rolled_part_acked_in_part::probe_r50a"
  local r49b="review_r49b_lost_writes_beside_a_rolled_cut_write::probe_r49b"
  case $name in
    # rs 4+3, 8 KiB elements: D2's OSS loses 20400+100, cut write 19384+6192.
    rs8k) echo "$r45d R45D_CODE=rs:4:3 R45D_E=8192 R45D_LOST=20400+100 R45D_WRITE=19384+6192 R45D_SEED=$seed" ;;
    # rs 4+3, 4 KiB: D2's OSS loses 11242+100, cut write 11192+2096.
    rs4k) echo "$r45d R45D_CODE=rs:4:3 R45D_E=4096 R45D_LOST=11242+100 R45D_WRITE=11192+2096 R45D_SEED=$seed" ;;
    # raid6 (k 4), as rs4k / rs8k.
    d-4k) echo "$r45d R45D_CODE=raid6 R45D_E=4096 R45D_LOST=11242+100 R45D_WRITE=11192+2096 R45D_SEED=$seed" ;;
    d-8k) echo "$r45d R45D_CODE=raid6 R45D_E=8192 R45D_LOST=20400+100 R45D_WRITE=19384+6192 R45D_SEED=$seed" ;;
    # raid6 4 KiB, D3's OSS loses 13000+100 (review r47b's column switch).
    e3-4k) echo "$r45d R45D_CODE=raid6 R45D_E=4096 R45D_LOST=13000+100 R45D_WRITE=11192+2096 R47B_STALE_COL=3 R45D_SEED=$seed" ;;
    # d-4k with Q's OSS losing the write (the data right, the parity stale).
    q-4k) echo "$r45d R45D_CODE=raid6 R45D_E=4096 R45D_LOST=11242+100 R45D_WRITE=11192+2096 R47B_STALE_COL=5 R45D_SEED=$seed" ;;
    # Two lost writes (D2's and D3's OSSs) under a cut write: raid6 8 KiB, rs 4+3 4 KiB, raid6 4 KiB.
    a8) echo "$r50a R50A_CODE=raid6:4 R50A_E=8192 R50A_FIRST=26000 R50A_LOST=20400+100@2,24700+100@3 R50A_WRITE=19384+6192 R50A_SEED=$seed" ;;
    ars) echo "$r50a R50A_CODE=rs:4:3 R50A_E=4096 R50A_FIRST=13000 R50A_LOST=11242+100@2,12400+100@3 R50A_WRITE=11192+2096 R50A_SEED=$seed" ;;
    a13) echo "$r50a R50A_CODE=raid6:4 R50A_E=4096 R50A_FIRST=13000 R50A_LOST=11242+100@2,12400+100@3 R50A_WRITE=11192+2096 R50A_SEED=$seed" ;;
    # Lost writes beside a rolled cut write (review r49b), raid6 4 KiB, first write 16384.
    r49b) echo "$r49b R49B_FIRST=16384 R49B_SEED=$seed" ;;
    *) return 1 ;;
  esac
}

if [ "${1:-}" = "--list" ]; then
  echo "rs8k rs4k d-4k d-8k e3-4k q-4k a8 ars a13 r49b (each as NAME-sSEED)"
  exit 0
fi
if [ "${1:-}" = "--compare" ]; then
  a=$2 b=$3
  lines() { grep -E "^(LOST-CUT|PROBLEM)" "$1" | sed -E 's#/(dev/shm|tmp)/[^ )]*#<image>#g'; }
  for f in "$a"/*-s*.txt; do
    c=$(basename "$f" .txt)
    [ -f "$b/$c.txt" ] || { echo "$c: missing in $b"; continue; }
    sa=$(grep -h "^probe:" "$f" || echo "probe: none")
    sb=$(grep -h "^probe:" "$b/$c.txt" || echo "probe: none")
    # The images live in fresh temporary directories: their paths are masked.
    if diff -q <(lines "$f") <(lines "$b/$c.txt") >/dev/null; then
      same="identical"
    else
      same="DIFFER"
    fi
    echo "$c: ${sa#probe: } | ${sb#probe: } | $same"
  done
  exit 0
fi
if [ $# -lt 3 ]; then
  echo "usage: $0 BIN OUT CELL... | --list | --compare A B" >&2
  exit 2
fi
bin=$(realpath "$1")
out=$2
shift 2
[ -x "$bin" ] || { echo "probe-cells: $bin is not an executable test binary" >&2; exit 2; }
mkdir -p "$out"
out=$(realpath "$out")

run_cell() {
  local bin=$1 out=$2 cell=$3
  local name=${cell%-s*} seed=${cell##*-s}
  local spec
  spec=$(cell_env "$name" "$seed") || { echo "probe-cells: unknown cell $cell (--list)" >&2; return 1; }
  local filter=${spec%% *} vars=${spec#* }
  # shellcheck disable=SC2086
  (cd /tmp && env $vars "$bin" "$filter" --exact --ignored --nocapture) > "$out/$cell.txt" 2>&1 || true
  echo "$cell: $(grep -h '^probe:' "$out/$cell.txt" | sed 's/^probe: //' || echo FAILED)"
}
export -f run_cell cell_env
printf '%s\n' "$@" | xargs -P "${PROBE_JOBS:-2}" -I{} bash -c 'run_cell "$0" "$1" "$2"' "$bin" "$out" {} \
  | tee -a "$out/summary.txt"
