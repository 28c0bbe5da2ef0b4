#!/bin/bash
# Review s11r R11-1 (BAD ERROR, low): a file name with control characters (newline, ESC) is
# printed raw by `status` (LOST and "open window" lines), `fail` (LOST lines), `scrub` (LOST /
# corrupt lines) and `get`'s "reading 'NAME' bytes ..." error prefix; `ls` and the library's
# other messages escape it (session-5 R3). `cat -A` shows the raw $ (newline) and ^[ (ESC).
# Usage: EXARAID=path/to/exaraid scripts/repro/repro-r11-1.sh [DIR]
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-1}
rm -rf "$D"; $E store init "$D" --oss 5 --code raid5 --stripe-unit 4096 --write-path delayed >/dev/null
N=$'x\ny\e[31mRED'
tok=$($E store delayed start "$D" "$N")
head -c 30000 /dev/urandom | $E store write "$D" "$N" --offset 0
echo "== status (window open)"; $E store status "$D" | tail -1 | cat -A
echo "== fail";   $E store fail "$D" --oss 1 2>&1 | cat -A
echo "== status"; $E store status "$D" 2>&1 | grep -A1 LOST | cat -A
echo "== get";    $E store get "$D" "$N" 2>&1 >/dev/null | head -2 | cat -A
echo "== scrub";  $E store scrub "$D" 2>&1 | grep -A1 LOST | cat -A
echo "== ls (escaped, for comparison)"; $E store ls "$D" | cat -A
