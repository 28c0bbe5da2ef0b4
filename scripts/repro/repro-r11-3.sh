#!/bin/bash
# Review s11r R11-3 (WRONG BYTES, exit 0; needs a misplaced object file): a zone file of OSS 2
# copied over the same-named zone file of OSS 1 (same object, zone, slots: a misdirected copy
# between OSS directories, or a remote OSS daemon serving the wrong target) passes every block
# checksum, because the crc32c seed is (object, zone, slot, block) without the OSS. `get`
# exits 0 with OSS 2's bytes in OSS 1's columns; only scrub's parity check sees it.
# Usage: EXARAID=path/to/exaraid scripts/repro/repro-r11-3.sh [DIR] [CODE ARGS...]
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-3}; shift
CODE=${*:-"--oss 6 --code raid6"}
rm -rf "$D"; mkdir -p "$D"; head -c 100000 /dev/urandom > "$D/a"
$E store init "$D/s" $CODE --stripe-unit 4096 >/dev/null
$E store put "$D/s" f < "$D/a"
cp "$D/s/oss-2/objects/0.data" "$D/s/oss-1/objects/0.data"
$E store get "$D/s" f > "$D/got"; rc=$?
n=$(cmp -l "$D/got" "$D/a" | wc -l)
echo "get rc=$rc, bytes differing from the put: $n"
$E store scrub "$D/s"; echo "scrub rc=$?"
[ $rc = 0 ] && [ $n != 0 ] && { echo "WRONG BYTES with exit 0"; exit 1; }
echo CLEAN
