#!/bin/bash
# s15r check (clean): `exaraid store bench --dir D` must not touch a user store D/store (it works in a fresh
# temporary directory under D: checked clean on main 53e949b).
# Usage: EXARAID=... repro-r15-1.sh SCRATCH
set -u
E=${EXARAID:?}; X=$1
rm -rf $X; mkdir -p $X/data; cd $X
$E store init data/store --oss 5 --code raid6 > /dev/null        # the user's store: /data/store
head -c 100000 /dev/urandom > f; $E store put data/store f < f
$E store ls data/store
echo "--- bench --dir $X/data (to measure the same disks)"
$E store bench --quick --repeat 1 --threads 1 --writes-per-thread 1 --dir $X/data > bench.out 2> bench.err
echo "bench rc $?"
ls -la data/
$E store ls data/store; echo "ls rc $?"
$E store get data/store f | cmp - f && echo "f intact" || echo "f GONE"
