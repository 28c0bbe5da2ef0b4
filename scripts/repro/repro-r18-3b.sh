#!/usr/bin/env bash
# R18-3 (s18r), the same silence without a timeout: a rotten window cache block met by the
# unprotected-bytes bound's parity advance (a window write to ANOTHER file past the bound) or by
# a `flush` (VIA=flush) is recorded LOST with no window token; the window's own END returns rc 0
# and says nothing (the window's writer never learns). usage: EXARAID=... [VIA=bound|flush] repro-r18-3b.sh [DIR]
E=${EXARAID:?}; D=${1:-/dev/shm/s18r-r3b}; VIA=${VIA:-bound}; rm -rf "$D"; mkdir -p "$D"; S=$D/s
"$E" store init "$S" --oss 8 --code rs --k 5 --m 3 --stripe-unit 4096 --write-path delayed --unprotected-max-bytes 8192 >/dev/null || exit 1
t=$("$E" store delayed start "$S" w); head -c 5000 /dev/urandom | "$E" store write "$S" w --offset 0
cf=$(ls "$S"/oss-1/objects/*.cache)   # OSS 1 holds file 'w' bytes 4096..5000
python3 -c "
h=open('$cf','r+b'); h.seek(100); b=h.read(1); h.seek(100); h.write(bytes([b[0]^0xff]))"
if [ "$VIA" = flush ]; then "$E" store flush "$S"; echo "flush rc=$?"
else t2=$("$E" store delayed start "$S" x); head -c 6000 /dev/urandom | "$E" store write "$S" x --offset 0
     echo "window write of 'x' past the bound rc=$?"; "$E" store delayed end "$S" "$t2"; fi
"$E" store status "$S" | grep -E "LOST"
echo "END of w's window:"; "$E" store delayed end "$S" "$t"; echo "end rc=$? (expected rc 1 naming 'w' bytes 4096..5000)"
rm -rf "$D"
