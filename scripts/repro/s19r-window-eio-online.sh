#!/usr/bin/env bash
# s19r (tried, clean: the CLI path of R19-3): a delayed-window write whose write step on one OSS fails
# (EIO on every write under that OSS: scripts/eioshim.c FAILWRITESUNDER) records that OSS failed and the
# write's bytes there LOST at a cache-zone address where they were never written; `online --oss I` (the
# disk works again) must not "read them back" (they are on record `restorable: false`: clean). Use OFF=0.
# usage: EXARAID=... repro-r19-3.sh [DIR] [CODE ARGS...]   (needs gcc for the shim)
set -u
E=${EXARAID:?}; D=${1:-/dev/shm/r19-3}; shift || true
CODE=${*:---code raid6 --oss 6}
SHIM=/tmp/s19r-eioshim.so
[ -f $SHIM ] || gcc -O2 -shared -fPIC -o $SHIM "$(dirname "$0")/../eioshim.c" -ldl || exit 1
rm -rf $D; mkdir -p $D; S=$D/s
$E store init $S $CODE --stripe-unit 4096 --write-path delayed >/dev/null || exit 1
head -c 40000 /dev/urandom > $D/old; $E store put $S f < $D/old
T=$($E store delayed start $S f); echo "window $T"
OFF=${OFF:-20480}; LEN=${LEN:-20000}; V=${V:-3}
head -c $LEN /dev/urandom > $D/new
FAILWRITESUNDER=$S/oss-$V/ LD_PRELOAD=$SHIM $E store write $S f --offset $OFF < $D/new 2>&1 | grep -v EIOSHIM | cut -c1-400
echo "window write (EIO on every write under oss-$V) rc=${PIPESTATUS[0]}"
$E store status $S --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print("failed", [o["index"] for o in d["oss"] if o.get("failed_on_record")], "lost", [(l["offset_bytes"], l["len_bytes"], l["oss"]) for l in d["lost_ranges"]])'
$E store online $S --oss $V 2>&1 | cut -c1-300; echo "online rc=${PIPESTATUS[0]}"
$E store delayed end $S $T 2>&1 | cut -c1-300; echo "END rc=${PIPESTATUS[0]}"
$E store get $S f > $D/got; echo "get rc=$?"
python3 - $D <<'PY'
import sys, os
D = sys.argv[1]; old = open(D + '/old', 'rb').read(); new = open(D + '/new', 'rb').read(); got = open(D + '/got', 'rb').read()
off = int(os.environ.get('OFF', '20480'))
model = bytearray(old); model.extend(bytearray(max(0, off + len(new) - len(model)))); model[off:off + len(new)] = new
bad = [i for i in range(len(got)) if i >= len(model) or not (got[i] == model[i] or (i < len(old) and got[i] == old[i]))]
print('len', len(got), 'of', len(model), '; bytes neither old nor new:', len(bad), (bad[0], bad[-1]) if bad else '', 'zeros among them:', sum(1 for i in bad if got[i] == 0))
PY
