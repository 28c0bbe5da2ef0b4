#!/bin/bash
# Merge review s17m, finding M17-2 (BAD ERROR, store locked out): two damaged labels on a
# raid5 store (beyond its tolerance) are what `repair-label` (s17d, R16b-2) is for, and it
# works on an idle store. But one write tried in that state (refused: 2 OSSs unavailable)
# leaves an interrupted write that needs recovery, which needs the OSSs: from then on EVERY
# open is refused, `ls`, `get` and `repair-label` included, and the refusal names
# `repair-label` as the way out (a loop). Only restoring a label file by hand gets out.
# Expected: repair-label runs (it writes one label file after checking data; recovery can
# wait) or the refusal names a way out that works. Got: exit 1 everywhere.
# Usage: EXARAID=/path/to/exaraid bash scripts/repro/repro-m17-2.sh [existing]
set -u
E=${EXARAID:-/work/target-lead/release/exaraid}
D=$(mktemp -d /dev/shm/s17m-r2.XXXXXX); trap 'rm -rf "$D"' EXIT; cd "$D"
$E store init s --oss 4 --code raid5 --stripe-unit 4096 --write-path wcl >/dev/null
head -c 20000 /dev/urandom > a
$E store put s f < a
cp s/oss-1/exaraid-oss.json label1.saved
for i in 1 2; do echo garbage > s/oss-$i/exaraid-oss.json; done
$E store ls s; echo "ls before the write: rc=$? (works)"
NAME=g; [ "${1:-}" = existing ] && NAME=f
$E store write s $NAME --offset 0 < a 2>/dev/null; echo "write $NAME: rc=$? (refused, expected)"
$E store ls s 2>&1 | cut -c1-160; echo "ls after: rc=${PIPESTATUS[0]} (expected 0)"
$E store repair-label s --oss 1 2>&1 | cut -c1-160; echo "repair-label 1: rc=${PIPESTATUS[0]} (expected 0)"
$E store repair-label s --oss 1 2>&1 | grep -o 'exaraid store repair-label` with `--oss 1`' | head -1
# The way out that works: the label restored by hand; then recovery runs and f reads.
cp label1.saved s/oss-1/exaraid-oss.json
$E store ls s >/dev/null 2>&1; echo "ls with label 1 restored by hand: rc=$?"
$E store get s f 2>/dev/null | cmp -s - a && echo "f reads as put"
