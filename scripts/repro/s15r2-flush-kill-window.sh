#!/bin/bash
# Review s15r2: R15-1's fix (a settle keeps a timed-out window closed: start+end journaled after the
# PlannerReset) under kill -9 at every durable call of the `flush`: after the killed flush and one
# command that recovers, is a write to the window's file protected at once (0 unprotected bytes,
# as after the timeout), or is the dead job's window running again with a fresh timeout?
# Usage: EXARAID=... SHIM=/tmp/s15r2-killshim.so [MINN=1] s15r2-flush-kill-window.sh SCRATCH [MAXN]
#   (SHIM: gcc -O2 -shared -fPIC -o /tmp/s15r2-killshim.so scripts/killshim.c -ldl)
set -u
E=${EXARAID:?}; SHIM=${SHIM:?}; D=$1; MAXN=${2:-60}
mkdir -p $D; cd $D
setup() {
  rm -rf s f; $E store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path delayed --window-timeout-ms 800 > /dev/null
  head -c 60000 /dev/urandom > f; $E store put s f < f
  $E store delayed start s f > /dev/null
  head -c 3000 /dev/urandom | $E store write s f --offset 100
  sleep 1.2; $E store status s > /dev/null   # the timeout fires
  head -c 3000 /dev/urandom | $E store write s f --offset 9000   # protected at once
}
for n in $(seq ${MINN:-1} $MAXN); do
  setup
  rm -f kc; LD_PRELOAD=$SHIM KILLN=$n KILLCOUNT_FILE=$D/kc $E store flush s > /dev/null 2>&1; rc=$?
  $E store status s > /dev/null 2>&1    # recovery
  head -c 3000 /dev/urandom | $E store write s f --offset 20000 2>/dev/null
  u=$($E store status s 2>&1 | grep -o "bytes unprotected: [0-9]*")
  echo "kill at $n (flush rc $rc): after a write: $u"
  [ $rc = 0 ] && break
done
