#!/bin/bash
# Review s11r R11-5 (robustness / DOC, medium-low): the store's clock is the largest wall-clock
# time any command ever saw (`now_ns = max(now, state.last_now_ns)`), so ONE command run with
# the wall clock ahead (a node with a wrong RTC, an NTP step back afterwards) freezes the
# store's time there: later delayed windows never time out until the real clock catches up
# (here 10 years), their bytes stay without parity past --window-timeout-ms, nothing says so.
# Usage: EXARAID=... scripts/repro/repro-r11-5.sh [DIR]   (builds scripts/clockshim.c with gcc)
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-5}; here=$(dirname "$0")
rm -rf "$D"; mkdir -p "$D"; gcc -O2 -shared -fPIC -o "$D/clockshim.so" "$here/../clockshim.c" -ldl || exit 2
head -c 20000 /dev/urandom > "$D/w"
for ahead in 0 315360000; do
  S="$D/s$ahead"
  $E store init "$S" --oss 5 --code raid5 --stripe-unit 4096 --write-path delayed --window-timeout-ms 2000 >/dev/null
  # One command (any: a put here) with the clock $ahead s ahead.
  LD_PRELOAD="$D/clockshim.so" CLOCKSHIM_OFFSET_S=$ahead $E store put "$S" g < "$D/w"
  $E store delayed start "$S" f >/dev/null
  $E store write "$S" f --offset 0 < "$D/w"
  sleep 3   # past the 2 s window timeout
  echo "clock ahead ${ahead} s once: $($E store status "$S" | grep '^bytes unprotected')"
done
echo "(expected 0 in both: the window timed out after 2 s)"
