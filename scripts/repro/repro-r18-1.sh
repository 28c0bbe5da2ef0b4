#!/usr/bin/env bash
# R18-1 (s18r): a write over one rotten data block (raid6 / rs, nothing failed) is refused
# "checksum mismatch ... `scrub --repair` rebuilds them" after part of it landed; the scrub the
# message advises then finds nothing. usage: EXARAID=... repro-r18-1.sh [DIR] [FIRSTLEN]
#   FIRSTLEN: bytes written first (3000: the rotten block is a hole of the stripe; 6000: it holds data)
E=${EXARAID:?}; D=${1:-/dev/shm/s18r-r1}; FIRST=${2:-3000}; rm -rf "$D"; mkdir -p "$D"; S=$D/s
"$E" store init "$S" --oss 6 --code raid6 --stripe-unit 4096 >/dev/null || exit 1
head -c "$FIRST" /dev/urandom > "$D/a"; head -c 6000 /dev/urandom > "$D/b"
"$E" store write "$S" f --offset 0 < "$D/a" || exit 1
# one byte of OSS 1's data element of stripe 0 (column 1: file bytes 4096..8191) flipped
f=$S/oss-1/objects/0.data; python3 -c "
h=open('$f','r+b'); o=$(stat -c %s "$f")-100; h.seek(o); b=h.read(1); h.seek(o); h.write(bytes([b[0]^0xff]))"
echo "--- plain scrub before the write:"; "$E" store scrub "$S" | tail -1
echo "--- write 6000 bytes at 0 (column 0 whole, column 1 in part):"
"$E" store write "$S" f --offset 0 < "$D/b"; echo "rc=$?"
"$E" store get "$S" f > "$D/got"; echo "get rc=$? size=$(stat -c %s "$D/got")"
python3 -c "
a=open('$D/a','rb').read(); b=open('$D/b','rb').read(); g=open('$D/got','rb').read()
print('equal new:', g==b, ' bytes new/old/neither:', sum(g[i]==b[i] for i in range(len(g))), sum(i<len(a) and g[i]==a[i] or i>=len(a) and g[i]==0 for i in range(len(g))), sum(g[i]!=b[i] and not (i<len(a) and g[i]==a[i] or i>=len(a) and g[i]==0) for i in range(len(g))))"
echo "--- the advised scrub --repair:"; "$E" store scrub "$S" --repair | tail -1; echo "rc=$?"
echo "--- the same write again:"; "$E" store write "$S" f --offset 0 < "$D/b"; echo "rc=$?"
"$E" store get "$S" f | cmp - "$D/b" && echo "exact after the retry"
rm -rf "$D"
