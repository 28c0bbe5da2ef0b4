#!/usr/bin/env bash
# R18-3 (s18r): a delayed window's cache block rots (its only copy, no parity yet) and the window's
# timeout comes due. (a) the first command after that, whatever file it names, is refused with the
# window file's error (the open's timeout END fails on the rotten block); the next one works.
# (b) the timeout records the bytes LOST with no window token ("none: ..."), so the window's END
# later returns rc 0 and says nothing, though the window's bytes 4096..5000 are lost (`status`
# lists them). Control MODE=fail (OSS 1 failed instead of the rot): END rc 1 naming the bytes.
# usage: EXARAID=... [MODE=rot|fail] repro-r18-3.sh [DIR]
E=${EXARAID:?}; D=${1:-/dev/shm/s18r-r3}; MODE=${MODE:-rot}; rm -rf "$D"; mkdir -p "$D"; S=$D/s
"$E" store init "$S" --oss 8 --code rs --k 5 --m 3 --stripe-unit 4096 --write-path delayed --window-timeout-ms 1000 >/dev/null || exit 1
head -c 30000 /dev/urandom > "$D/b"; "$E" store put "$S" other < "$D/b"
t=$("$E" store delayed start "$S" w); head -c 5000 /dev/urandom | "$E" store write "$S" w --offset 0
if [ "$MODE" = fail ]; then "$E" store fail "$S" --oss 1 >/dev/null 2>&1; echo "OSS 1 failed inside window $t"
else
  cf=$(ls "$S"/oss-1/objects/*.cache)   # OSS 1 holds file 'w' bytes 4096..5000 (column 1)
  python3 -c "
h=open('$cf','r+b'); h.seek(100); b=h.read(1); h.seek(100); h.write(bytes([b[0]^0xff]))"
  echo "rotted one byte of $cf (window $t)"
fi
sleep 1.5   # past the window timeout
for i in 1 2; do
  "$E" store read "$S" other --offset 0 --length 100 > /dev/null 2>"$D/e"; echo "(a) read of file 'other' #$i rc=$? $(cut -c1-330 "$D/e")"
done
"$E" store status --json "$S" | python3 -c "import json,sys; d=json.load(sys.stdin); print('lost_ranges', d['lost_ranges']); print('open_windows', [w['token'] for w in d['open_windows']])"
echo "(b) END of the window:"; "$E" store delayed end "$S" "$t"; echo "end rc=$? (expected rc 1 naming 'w' bytes 4096..5000, as with MODE=fail)"
"$E" store get "$S" w > /dev/null 2>&1; echo "get w rc=$?"
rm -rf "$D"
