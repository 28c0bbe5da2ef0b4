#!/bin/bash
# Review s11r R11-3 (WRONG BYTES, exit 0; needs a misplaced object file): a zone file of OSS 2
# copied over the same-named zone file of OSS 1 (same object, zone, slots: a misdirected copy
# between OSS directories, or a remote OSS daemon serving the wrong target) passes every block
# checksum, because the crc32c seed is (object, zone, slot, block) without the OSS. `get`
# exits 0 with OSS 2's bytes in OSS 1's columns; only scrub's parity check sees it.
# Usage: EXARAID=path/to/exaraid scripts/repro/repro-r11-3.sh [DIR] [CODE ARGS...]
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-3}; shift
CODE=${*:-"--oss 6 --code raid6"}
if [ "${WCL:-0}" = 1 ]; then
  rm -rf "$D"; mkdir -p "$D"; head -c 100000 /dev/urandom > "$D/a"; head -c 30000 /dev/urandom > "$D/w"
  $E store init "$D/s" $CODE --stripe-unit 4096 --write-path wcl >/dev/null
  $E store put "$D/s" f < "$D/a"; $E store write "$D/s" f --offset 0 < "$D/w"
  { cat "$D/w"; tail -c +30001 "$D/a"; } > "$D/exp"
  c=$(cd "$D/s/oss-2/objects" && ls *.cache | head -1)
  cp "$D/s/oss-2/objects/$c" "$D/s/oss-1/objects/$c"
  $E store get "$D/s" f > "$D/got"; echo "get rc=$?, bytes differing from the acknowledged: $(cmp -l "$D/got" "$D/exp" | wc -l)"
  $E store scrub "$D/s" | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
  $E store flush "$D/s"; $E store get "$D/s" f > "$D/got"; echo "after flush: get rc=$?, differing: $(cmp -l "$D/got" "$D/exp" | wc -l)"
  $E store scrub "$D/s" | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
  exit 0
fi
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
# WCL=1: the same with the cache zone file (ids 2^64-1 .cache) of a WCL store holding a cached
# overwrite: get exit 0 with wrong bytes, scrub (which checks cache crcs, not cache-stripe
# parity) exit 0 and silent, `flush` moves the wrong bytes home under fresh parity.
