#!/usr/bin/env bash
# s20r R20-3: raid6 delayed, an acknowledged window write, END killed with one torn block (kill point
# write-torn-block, plan order), then ONE flipped bit in a home data element of that stripe that END
# does not write (acknowledged bytes from the put) before the next open: the open's recovery names
# those acknowledged bytes LOST (2 faults: within raid6's tolerance). usage: EXARAID=... repro-r20-3.sh [DIR]
set -u
E=${EXARAID:?}; S=${1:-/tmp/s20r-r20-3}; rm -rf $S
$E store init $S --oss 6 --code raid6 --stripe-unit 4096 --write-path delayed >/dev/null || exit 1
python3 -c "import random; r=random.Random(7); open('$S.old','wb').write(bytes(r.randrange(256) for _ in range(10263)))"
python3 -c "import random; r=random.Random(8); open('$S.new','wb').write(bytes(r.randrange(256) for _ in range(18952)))"
$E store put $S f < $S.old
T=$($E store delayed start $S f)
$E store write $S f --offset 9419 < $S.new; echo "window write rc=$? (acknowledged)"
EXARAID_KILL_AT=write-torn-block:3 EXARAID_KILL_IN_PLAN_ORDER=1 $E store delayed end $S $T
echo "END rc=$? (killed)"
python3 - $S <<'PY'
import sys; S = sys.argv[1]
f = open(S + '/oss-1/objects/0.data', 'r+b'); f.seek(829); b = f.read(1); f.seek(829); f.write(bytes([b[0] ^ 0x10]))
print('flipped one bit of oss-1/objects/0.data byte 829 (file byte 4096+829, put by `put`, not in the window)')
PY
$E store get $S f > $S.got; echo "get rc=$?"
$E store status $S --json | python3 -c 'import json,sys; print("lost_ranges", json.load(sys.stdin)["lost_ranges"])'
rm -rf $S $S.old $S.new $S.got
