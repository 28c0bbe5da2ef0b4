#!/bin/bash
# reduced R11-7 Part A (review s11r): raid6 4+2, 6 OSSs, WCL, 250 files of 20,000 bytes each with a cached 3,000-byte write,
# then scrub, flush, fail+rebuild --oss 2, scrub under `ulimit -n LIMIT`. Usage: repro-r11-7-short.sh EXARAID DIR LIMIT
E=$1; D=$2; LIM=$3
rm -rf "$D"; mkdir -p "$D"; S="$D/s"
$E store init "$S" --oss 6 --code raid6 --stripe-unit 4096 --write-path wcl >/dev/null
for i in $(seq 1 250); do head -c 20000 /dev/urandom | $E store put "$S" f$i; done
for i in $(seq 1 250); do head -c 3000 /dev/urandom | $E store write "$S" f$i --offset 100; done
( ulimit -n $LIM
  for c in "scrub $S" "flush $S"; do $E store $c >/dev/null 2>"$D/err"; echo "$c: rc=$? $(head -c 120 "$D/err")"; done
  $E store fail "$S" --oss 2 >/dev/null
  $E store rebuild "$S" --oss 2 >/dev/null 2>"$D/err"; echo "rebuild --oss 2: rc=$? $(head -c 120 "$D/err")"
  $E store scrub "$S" >/dev/null 2>"$D/err"; echo "scrub after: rc=$? $(head -c 120 "$D/err")" )
echo "OSSs recorded FAILED: $($E store status "$S" | awk '$2 == "FAILED" {print $1}' | tr '\n' ' ')"
