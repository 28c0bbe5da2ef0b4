#!/bin/bash
# Review s13r R13-5 (PANIC, low): with stderr a pipe whose reader has gone (`2>&1 | head -1`,
# a log collector that exited, `| true`), every error or warning exaraid prints becomes a
# Rust panic ("failed printing to stderr", exit 101) instead of its exit code (1; scrub 2).
# stdout's broken pipe is handled on purpose (exit 0); stderr's is not.
# Usage: EXARAID=... scripts/repro/repro-r13-5.sh [DIR]
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r13-5}
rm -rf "$D"; mkdir -p "$D"
$E store init "$D/s" --oss 4 --code raid5 --stripe-unit 4096 >/dev/null
echo hi | $E store put "$D/s" f
$E store get "$D/s" nosuch 2>/dev/null; echo "error, stderr to /dev/null: rc=$? (expected 1)"
(sleep 0.3; $E store get "$D/s" nosuch) 2>&1 | true; echo "error, stderr a closed pipe: rc=${PIPESTATUS[0]}"
# A successful read that prints a warning (here: the metadata directory read-only for this
# reader, root's `chattr +i` on state) panics too: its bytes are never written.
chattr +i "$D/s/state"
(sleep 0.3; $E store get "$D/s" f 2>&1 >"$D/out") | true; echo "get with a warning, stderr a closed pipe: rc=${PIPESTATUS[0]}, stdout $(wc -c < "$D/out") bytes (3 expected)"
chattr -i "$D/s/state"
