#!/bin/bash
# Repro (review s7s S7-3): a flush (settle) of a WCL raid5 4+1 store whose fdatasync of one
# OSS fails (EIO, sticky: scripts/eioshim.c SYNCFAILN), then a kill -9 a few durable calls
# later (SYNCKILLAFTER), while s7d records that OSS failed. The next open records acknowledged
# cached bytes of f1 and f3 LOST ("a write or settle cut by a crash, with an OSS failed: too
# few columns left to tell"), though every other OSS synced the settle's home writes and the
# cache zone still held the bytes.
# Usage: repro-settle-sync-eio-kill.sh [SYNCFAILN [SYNCKILLAFTER|settle-synced]]  (default 26 4;
# settle-synced: the store's own kill point right after the Fail record, EXARAID_KILL_AT)
# Env: EXARAID, SHIM (eioshim .so with SYNCFAILN/SYNCKILLAFTER), REPRO_DIR, CODE (raid5), NOSS (5).
set -u
X=${EXARAID:-target/release/exaraid}
SHIM=${SHIM:-/tmp/eioshim.so}
D=${REPRO_DIR:-/tmp/repro-settle-sync-eio-kill}/s
rm -rf "$(dirname $D)"; mkdir -p "$(dirname $D)"
gen() { python3 -c "import random,sys; sys.stdout.buffer.write(random.Random($1).randbytes($2))"; }
$X store init $D --oss ${NOSS:-5} --code ${CODE:-raid5} --stripe-unit 4096 --write-path wcl >/dev/null
gen 1 40000 | $X store put $D f1; gen 2 9000 | $X store put $D f2; gen 3 70000 | $X store put $D f3
gen 11 3000 | $X store write $D f1 --offset 5000
gen 12 9000 | $X store write $D f3 --offset 20000
gen 13 12000 | $X store write $D f1 --offset 30000
if [ "${2:-4}" = settle-synced ]; then KA=(EXARAID_KILL_AT=settle-synced:1); else KA=(SYNCKILLAFTER=${2:-4}); fi
env LD_PRELOAD=$SHIM SYNCFAILN=${1:-26} FAILSTICKY=1 "${KA[@]}" $X store flush $D; echo "flush exit $?"
for f in f1 f2 f3; do $X store get $D $f > /dev/null; echo "get $f exit $?"; done
$X store status $D | grep -i -A3 "lost\|failed" | head -12
