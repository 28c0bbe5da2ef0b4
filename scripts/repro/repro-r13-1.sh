#!/bin/bash
# Review s13r R13-1 (WRONG BYTES, exit 0, silent; a REGRESSION of session 12's stale_cache.rs):
# one lost write in a WCL cache zone (an OSS acknowledged a cache write it never made, or its
# cache zone file put back from a copy), then an acknowledged write OVER the same range: the
# new bytes read back right, until the next move home (`flush`, a destage of a complete cache
# stripe, or `scrub --repair`) "corrects" the stale column of the OLDER cache stripe and lays
# that correction over the newer bytes: the acknowledged range then reads bytes that are
# neither the new, the lost nor the original ones, exit 0, and scrub is clean for good.
# A pre-session-12 binary (superblock v1) reads every byte right in all three variants.
# raid6 4+2, 4 KiB unit; also rs, dcode, rdp, evenodd, xcode (CODE=..., NOSS=...).
# Usage: EXARAID=... scripts/repro/repro-r13-1.sh [DIR]
#   V=OSS whose cache loses the write (default 0); L=lost write off+len (default 0+3000);
#   A=later write off+len (default 0+8192; 0+16384 = the whole stripe: destaged at once);
#   REPAIR=1: run `scrub --repair` before the flush; UNIT (stripe unit, default 4096).
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r13-1}; V=${V:-0}; L=${L:-0+3000}; A=${A:-0+8192}
rm -rf "$D"; mkdir -p "$D"; S="$D/s"; cd "$D" || exit 2
$E store init "$S" --oss ${NOSS:-6} --code ${CODE:-raid6} --stripe-unit ${UNIT:-4096} --write-path wcl >/dev/null || exit 2
head -c 65536 /dev/urandom > orig; $E store put "$S" f < orig; cp orig exp
w() { head -c ${1#*+} /dev/urandom > $2; $E store write "$S" f --offset ${1%+*} < $2 || exit 2
      python3 -c "a=bytearray(open('exp','rb').read()); w=open('$2','rb').read(); a[${1%+*}:${1%+*}+len(w)]=w; open('exp','wb').write(a)"; }
mkdir snap; cp "$S"/oss-$V/objects/*.cache snap/ 2>/dev/null
w $L lostw                                                          # the write OSS $V will lose
cp snap/* "$S"/oss-$V/objects/ 2>/dev/null || rm -f "$S"/oss-$V/objects/*.cache   # ... lost (old bytes, valid crcs)
[ "$A" != none ] && w $A after                                             # acknowledged, covers the lost range
$E store get "$S" f > got; echo "after the overwrite: get rc=$?, bytes not the acknowledged: $(cmp -l got exp | wc -l)"
if [ -n "$REPAIR" ]; then $E store scrub "$S" --repair | grep -m1 repaired:; echo "scrub --repair rc=${PIPESTATUS[0]}"; fi
$E store scrub "$S" | grep -E 'mismatch:'; echo "scrub rc=${PIPESTATUS[0]}"
$E store flush "$S" >/dev/null; echo "flush rc=$?"
$E store get "$S" f > got; echo "after flush: get rc=$?, bytes not the acknowledged: $(cmp -l got exp | wc -l)"
$E store scrub "$S" | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
