#!/bin/sh
# R14b-3, upgrade variant (review s14r2): a store on which a binary from before session 14
# did `fail --oss 3` + `rebuild --oss 3 --to NEW/oss-3` (the old DIR/oss-3 left in place);
# the first command of the session-14 binary uses DIR/oss-3 again: OSS 3 FAILED/UNAVAILABLE
# after nothing but the upgrade. Usage: EXARAID=new OLD=old scripts/repro/repro-r14b-3-upgrade.sh /dev/shm/x
set -u
E=${EXARAID:?}; OLD=${OLD:?}; D=${1:?}; rm -rf "$D"; mkdir -p "$D/newdisk"; cd "$D" || exit 1
head -c 30000 /dev/urandom > a.bin; head -c 30000 /dev/urandom > b.bin
"$OLD" store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
"$OLD" store put s f < a.bin; "$OLD" store fail s --oss 3 >/dev/null; "$OLD" store put s f < b.bin
"$OLD" store rebuild s --oss 3 --to "$D/newdisk/oss-3"
"$OLD" store status s | awk '/^ *3 /{print "old binary: OSS 3", $2, $NF}'
"$E" store status s | awk '/^ *3 /{print "new binary: OSS 3", $2, $NF, "(expected: ok at newdisk/oss-3)"}'
