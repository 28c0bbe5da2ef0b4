#!/bin/bash
# Review s13r R13-4 (WRONG BYTES, exit 0, by `scrub --repair`; PRE-EXISTING, R11-9 family,
# home elements): OSS V loses a home write (its data zone file put back: old bytes, valid
# crcs); the same range is then overwritten by an rmw write (acknowledged; with A=0+3000 it
# covers the lost range whole and every byte reads right). That write's read-modify-write
# read the stale column as "old", so P and Q now agree with each other on a third value of
# that column. `scrub --repair` then "locates" the freshly written column as the stale one
# and rewrites the acknowledged bytes with that third value: rc 0, scrub clean after.
# Usage: EXARAID=... scripts/repro/repro-r13-4.sh [DIR]   (V=0 L=0+3000 A=0+2000|0+3000, CODE, NOSS)
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r13-4}; V=${V:-0}
rm -rf $D; mkdir -p $D; S=$D/s; cd $D
$E store init $S --oss ${NOSS:-6} --code ${CODE:-raid6} --stripe-unit 4096 --write-path rmw >/dev/null
head -c 65536 /dev/urandom > orig; $E store put $S f < orig; cp orig exp
w() { head -c ${1#*+} /dev/urandom > $2; $E store write $S f --offset ${1%+*} < $2 || exit 2
      python3 -c "a=bytearray(open('exp','rb').read()); w=open('$2','rb').read(); a[${1%+*}:${1%+*}+len(w)]=w; open('exp','wb').write(a)"; }
cp $S/oss-$V/objects/0.data snapdata
w ${L:-0+3000} lostw
cp snapdata $S/oss-$V/objects/0.data          # OSS V lost that home write
w ${A:-0+2000} after                           # acked overwrite of part of the lost range
$E store get $S f > got; echo "after the overwrite: get rc=$?, wrong $(cmp -l got exp | wc -l)"
$E store scrub $S --repair | grep -E 'repaired:|unrepairable' | head -3; echo "scrub --repair rc=${PIPESTATUS[0]}"
$E store get $S f > got; echo "after scrub --repair: get rc=$?, wrong $(cmp -l got exp | wc -l)"
$E store scrub $S | tail -1
