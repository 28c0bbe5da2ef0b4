#!/bin/bash
# R15-1: a delayed window whose timeout fired is started again (a fresh window, new timeout) by the
# next settle (flush, rebuild, online, ...: the settle's PlannerReset runs restart_windows): writes to
# its file, protected at once after the timeout, are again unprotected after the settle, and with an
# OSS failed, refused where they were accepted a moment before.
# Usage: EXARAID=... repro-r15-1.sh SCRATCH
set -u
E=${EXARAID:?}; D=$1
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path delayed --window-timeout-ms 1500 > /dev/null
head -c 60000 /dev/urandom > f; $E store put s f < f
T=$($E store delayed start s f); echo "window $T"
head -c 3000 /dev/urandom | $E store write s f --offset 100
sleep 2; echo "--- after the timeout:"; $E store status s | grep -i "unprotected\|window"
head -c 3000 /dev/urandom | $E store write s f --offset 9000; echo "write rc $?"
$E store status s | grep -i "unprotected"
$E store fail s --oss 1
for off in 0 4096 8192 12288 16384 20480; do head -c 100 /dev/urandom | $E store write s f --offset $off 2>/dev/null; echo -n "write@$off rc $? | "; done; echo
echo "--- flush (a settle), nothing else:"; $E store flush s
for off in 0 4096 8192 12288 16384 20480; do head -c 100 /dev/urandom | $E store write s f --offset $off 2>err; echo -n "write@$off rc $? | "; done; echo
head -c 300 err; echo
$E store status s | grep -i "unprotected\|window"
