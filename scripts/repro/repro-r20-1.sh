#!/usr/bin/env bash
# s20r R20-1: raid6 rmw, a write killed with one torn parity block (kill point write-torn-block, plan
# order), then ONE flipped bit in a data element of that stripe before the next open (2 faults, within
# raid6's tolerance): the open's recovery keeps the flipped byte, `get` exits 0 with it, scrub is clean.
# usage: EXARAID=... repro-r20-1.sh [DIR]
set -u
E=${EXARAID:?}; S=${1:-/tmp/s20r-r20-1}; rm -rf $S
$E store init $S --oss 6 --code raid6 --stripe-unit 4096 >/dev/null || exit 1
python3 -c "import random; r=random.Random(7); open('$S.old','wb').write(bytes(r.randrange(256) for _ in range(48453)))"
python3 -c "import random; r=random.Random(8); open('$S.new','wb').write(bytes(r.randrange(256) for _ in range(15061)))"
$E store put $S f < $S.old
EXARAID_KILL_AT=write-torn-block:3 EXARAID_KILL_IN_PLAN_ORDER=1 $E store write $S f --offset 14338 < $S.new
echo "write rc=$? (killed: not acknowledged; each byte of 14338..29399 may be old or new)"
python3 - $S <<'PY'
import sys; S = sys.argv[1]
f = open(S + '/oss-1/objects/0.data', 'r+b'); f.seek(6818); b = f.read(1); f.seek(6818); f.write(bytes([b[0] ^ 0x02]))
print('flipped bit 1 of oss-1/objects/0.data byte 6818 (one rotten data byte: with the torn block, 2 faults)')
PY
$E store get $S f > $S.got; echo "get rc=$?"
python3 - $S <<'PY'
import sys; S = sys.argv[1]
old = open(S + '.old', 'rb').read(); new = bytearray(old); new[14338:14338 + 15061] = open(S + '.new', 'rb').read()
got = open(S + '.got', 'rb').read()
bad = [i for i in range(len(got)) if got[i] != old[i] and got[i] != new[i]]
print('bytes neither old nor new:', len(bad), ['%d: got %#x old %#x new %#x' % (i, got[i], old[i], new[i]) for i in bad[:3]])
PY
$E store scrub $S | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
rm -rf $S $S.old $S.new $S.got
