#!/usr/bin/env bash
# R18-5 (s18r): delayed window END over a stripe with one rotten home byte (raid6 / rs, nothing
# failed) fails "bytes 4096..6000 are lost", though every byte of the window reads back exact and
# scrub is clean afterwards. usage: EXARAID=... repro-r18-5.sh [DIR] [FIRSTLEN=3000]
E=${EXARAID:?}; D=${1:-/dev/shm/s18r-r5}; FIRST=${2:-3000}; rm -rf "$D"; mkdir -p "$D"; S=$D/s
"$E" store init "$S" --oss 6 --code raid6 --stripe-unit 4096 --write-path delayed >/dev/null || exit 1
head -c "$FIRST" /dev/urandom | "$E" store write "$S" f --offset 0
# one byte of OSS 1's home data element of stripe 0 (column 1, file bytes 4096..8191; the byte at 8092)
f=$S/oss-1/objects/0.data; python3 -c "
h=open('$f','r+b'); o=$(stat -c %s "$f")-100; h.seek(o); b=h.read(1); h.seek(o); h.write(bytes([b[0]^0xff]))"
t=$("$E" store delayed start "$S" f); head -c 6000 /dev/urandom > "$D/b"
"$E" store write "$S" f --offset 0 < "$D/b"; echo "window write rc=$?"
"$E" store delayed end "$S" "$t"; echo "END rc=$? (expected 0: nothing failed, one rotten byte is within raid6's tolerance)"
"$E" store status "$S" | grep -E "LOST|open window"
"$E" store get "$S" f | cmp - "$D/b" && echo "get: every window byte exact"
"$E" store scrub "$S" | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
rm -rf "$D"
