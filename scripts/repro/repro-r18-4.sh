#!/usr/bin/env bash
# R18-4 (s18r): hdp p=5, nothing failed: one rotten byte in OSS 0's data, then a write over part of
# its stripe is refused "checksum mismatch" (R18-1); in about 1 run of 10 the next open keeps the
# rotten byte under a valid checksum: `scrub --repair` clean, `get` exit 0 returns old^0x5a at one
# byte of the write's range. Loop it: for i in $(seq 30); do repro-r18-4.sh; done | grep neither
# usage: EXARAID=... repro-r18-4.sh [DIR]
E=${EXARAID:?}; D=${1:-/dev/shm/s18r-r4}; rm -rf "$D"; mkdir -p "$D"; S=$D/s
"$E" store init "$S" --oss 5 --code hdp --p 5 --stripe-unit 4096 >/dev/null || exit 1
python3 -c "import random; r=random.Random(1); open('$D/a','wb').write(r.randbytes(15116)); open('$D/b','wb').write(r.randbytes(7260))"
"$E" store write "$S" f --offset 5225 < "$D/a" || exit 1
python3 -c "
h=open('$S/oss-0/objects/0.data','r+b'); h.seek(9783); b=h.read(1); h.seek(9783); h.write(bytes([b[0]^0x5a]))"
"$E" store scrub "$S" | tail -1
"$E" store write "$S" f --offset 12179 < "$D/b"; echo "write rc=$?"
echo "the advised scrub (first open after the refused write):"; "$E" store scrub "$S" --repair | tail -1
"$E" store get "$S" f > "$D/got"; echo "get rc=$?"
python3 - "$D" <<'P'
import sys; D = sys.argv[1]
a = open(D + '/a', 'rb').read(); b = open(D + '/b', 'rb').read(); g = open(D + '/got', 'rb').read()
old = bytearray(5225) + a; new = bytearray(old); new[12179:12179 + len(b)] = b
bad = [i for i in range(len(g)) if g[i] != new[i] and g[i] != old[i]]
print('len', len(g), 'of', len(new), '; bytes neither old nor new:', len(bad), (bad[0], bad[-1]) if bad else '')
if bad: print('e.g. at', bad[0], 'got', g[bad[0]], 'old', old[bad[0]], 'new', new[bad[0]], '; got^old', g[bad[0]] ^ old[bad[0]])
P
"$E" store scrub "$S" | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
[ -n "$KEEP" ] || rm -rf "$D"
