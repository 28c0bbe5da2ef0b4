#!/bin/bash
# Review s11r R11-9 (WRONG BYTES made permanent; DOC): a stale WCL cache element (a lost write
# on one OSS, or its cache zone file put back from an older copy) reads back stale with exit 0
# (documented for any stale element), but scrub does not see it (scrub checks the cache zone's
# crcs, never its cache stripes' parity; the guide says a stale element "is seen only by the
# parity equations. `scrub` reports the stripe"), and the next destage/flush computes home
# parity from it: after `flush` the stale bytes are home under fresh parity, scrub clean,
# degraded reads agree. No fault beyond one lost write on one OSS (raid6 tolerates two).
# RMW=1: the same on home elements of an rmw store: a stale data element IS reported by scrub
# (right), until a later partial-stripe write of the other columns computes parity from it
# (reconstruct-write); then scrub is clean and the stale bytes are permanent.
# Usage: EXARAID=... scripts/repro/repro-r11-9.sh [DIR]
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-9}
rm -rf "$D"; mkdir -p "$D"; S="$D/s"; cd "$D" || exit 2
if [ "${RMW:-0}" = 1 ]; then
  $E store init "$S" --oss 6 --code raid6 --stripe-unit 4096 --write-path rmw >/dev/null
  head -c 65536 /dev/urandom > a; $E store put "$S" f < a; cp a exp
  w() { head -c $2 /dev/urandom > wtmp; $E store write "$S" f --offset $1 < wtmp || exit 2
        python3 -c "a=bytearray(open('exp','rb').read()); w=open('wtmp','rb').read(); a[$1:$1+len(w)]=w; open('exp','wb').write(a)"; }
  cp -r "$S/oss-1" snap1; w 0 16384; cp snap1/objects/0.data "$S/oss-1/objects/0.data"   # OSS 1 loses the write
  $E store get "$S" f > got; echo "stale: get rc=$?, wrong $(cmp -l got exp | wc -l) (documented)"
  $E store scrub "$S" | grep -m1 mismatch; echo "scrub rc=${PIPESTATUS[0]} (right: reported)"
  w 8192 8192     # columns 2 and 3 of stripe 0 again
  $E store get "$S" f > got; echo "after a 2-column write: get rc=$?, wrong $(cmp -l got exp | wc -l)"
  $E store scrub "$S" | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
  exit 0
fi
$E store init "$S" --oss 6 --code raid6 --stripe-unit 4096 --write-path wcl >/dev/null
head -c 65536 /dev/urandom > a; $E store put "$S" f < a; cp a exp
w() { head -c $2 /dev/urandom > wtmp; $E store write "$S" f --offset $1 < wtmp || exit 2
      python3 -c "a=bytearray(open('exp','rb').read()); w=open('wtmp','rb').read(); a[$1:$1+len(w)]=w; open('exp','wb').write(a)"; }
w 20000 1000   # stripe 1 in part: keeps the cache zone file alive
w 0 16384      # stripe 0 whole: a complete cache stripe, destaged home, its chunk freed
C=$(cd "$S/oss-1/objects" && ls | grep '\.cache$')
cp "$S/oss-1/objects/$C" snap           # OSS 1's cache zone file as it is now
w 0 3000; w 4096 3000; w 8192 3000       # cached again, into the reused chunk
cp snap "$S/oss-1/objects/$C"           # OSS 1 loses those writes (stale, valid crcs)
$E store get "$S" f > got; echo "get rc=$?, bytes not the acknowledged: $(cmp -l got exp | wc -l) (documented: stale reads)"
$E store scrub "$S" | tail -1; echo "scrub rc=${PIPESTATUS[0]} (the guide: scrub reports a stale element's stripe)"
$E store flush "$S" >/dev/null
$E store get "$S" f > got; echo "after flush: get rc=$?, wrong: $(cmp -l got exp | wc -l)"
$E store scrub "$S" | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
$E store fail "$S" --oss 1 >/dev/null; $E store get "$S" f > got; echo "OSS 1 failed: get rc=$?, wrong: $(cmp -l got exp | wc -l)"
