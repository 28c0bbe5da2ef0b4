#!/bin/bash
# R15-4 (DOC): a `rebuild` holds the store for its whole run: every other command (get, read, write,
# status of ANY file) waits --lock-wait-ms and then fails. The guide's "Failures, rebuild, scrub" does
# not say so; a rebuild of a large OSS is hours without reads through the CLI.
# Usage: EXARAID=... repro-r15-4.sh SCRATCH [MB]
set -u
E=${EXARAID:?}; D=$1; MB=${2:-600}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 > /dev/null
head -c 100000 /dev/urandom > small; $E store put s small < small
head -c ${MB}000000 /dev/zero | tr '\0' 'x' | $E store put s big
$E store fail s --oss 2 > /dev/null
S=$(date +%s.%N)
$E store rebuild s --oss 2 > rb.out 2>&1 & P=$!
sleep 0.5
$E store --lock-wait-ms 3000 get s small > got 2> err.txt; echo "get of another (small) file during the rebuild: rc $? $(head -c 250 err.txt)"
$E store --lock-wait-ms 3000 status s > /dev/null 2> err.txt; echo "status during the rebuild: rc $?"
wait $P; echo "rebuild rc $? after $(python3 -c "import time; print(round(time.time()-$S,1))") s: $(cat rb.out)"
$E store get s small | cmp - small && echo "small same after"
