#!/bin/bash
# Review s11r R11-2 (LOST ACKED, silent): two `exaraid store init` of the same directory at once
# (every rank of a job running "init if missing"): both exit 0 "created store", and a `put`
# acknowledged between them is gone (`ls` empty, `get` "no file named"). `init` takes no lock;
# a second init that finds the first one's exaraid-init.json takes it for a cut init and
# finishes it, the first then writes its empty state over the store the second made.
# strace only stretches the first init's pause before it writes its state (as a slow metadata
# disk would); without strace 8-12 ranks racing made two inits exit 0 in 4 of 25 rounds
# (/tmp/s11r/init-race.sh, kept below as the RACE=1 mode).
# Usage: EXARAID=path/to/exaraid scripts/repro/repro-r11-2.sh [DIR]   (needs strace)
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-2}
rm -rf "$D"; mkdir -p "$D"; head -c 50000 /dev/urandom > "$D/data"
if [ "${RACE:-0}" = 1 ]; then
  for r in $(seq 1 ${ROUNDS:-10}); do
    rm -rf "$D/s"; for i in $(seq 1 8); do
      ( sleep 0.$((RANDOM % 10))$((RANDOM % 10)); $E store init "$D/s" --oss 6 --code raid6 --stripe-unit 4096 >/dev/null 2>&1 && echo ok ) &
    done | grep -c ok | sed "s/^/round $r: inits that exited 0: /"; wait
  done; exit 0
fi
# The 76th openat of this init (Linux, this build) is its state.tmp: pause there 5 s.
N=${OPENAT_N:-76}
( strace -f -qq -o /dev/null -e trace=openat -e inject=openat:delay_enter=5000000:when=$N \
    $E store init "$D/s" --oss 6 --code raid6 --stripe-unit 4096 > "$D/initA" 2>&1; echo "rc=$?" >> "$D/initA" ) &
sleep 2
$E store init "$D/s" --oss 6 --code raid6 --stripe-unit 4096; echo "second init rc=$?"
$E store put "$D/s" precious < "$D/data"; echo "put rc=$?"
$E store get "$D/s" precious | cmp -s - "$D/data" && echo "put reads back"
wait; echo "first init: $(tr '\n' ' ' < "$D/initA")"
echo "ls now:"; $E store ls "$D/s"
if $E store get "$D/s" precious 2>/dev/null | cmp -s - "$D/data"; then echo "CLEAN: the acknowledged put reads"; else echo "LOST: the acknowledged put is gone"; exit 1; fi
