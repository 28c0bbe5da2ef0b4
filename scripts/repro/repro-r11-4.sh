#!/bin/bash
# Review s11r R11-4 (BAD ERROR / DOC, availability; nothing lost): the store directory (journal,
# state) on a full disk. The `put` that meets the full journal is refused cleanly, but its
# staging content stays, and every later open tries to remove it, needs a journal record,
# and fails: `ls`, `status`, `get`, `read`, `scrub` all exit 1 "journal ...: the disk is full",
# although docs/store.md says that on a full metadata disk "`get`, `read`, `ls` and `status`
# keep working". Freeing space brings every acknowledged byte back.
# It depends on which record the full disk cuts (file sizes are random): the script retries up
# to ROUNDS times (default 20) and stops at the first round whose reads are refused (1 of 6-7
# rounds on the delayed path in the review; the refused put's message then ends "... could not
# be removed yet (the settle that needs finds no room) and the next open or put of 'nN'
# removes it").
# Usage (root: mounts a 48 KiB tmpfs): EXARAID=... scripts/repro/repro-r11-4.sh [rmw|wcl|delayed]
E=${EXARAID:-target/release/exaraid}; WPATH=${1:-delayed}; M=${M:-/mnt/repro-r11-4}; W=${W:-/tmp/repro-r11-4}
for round in $(seq 1 ${ROUNDS:-20}); do
echo "--- round $round"
umount "$M" 2>/dev/null; rm -rf "$W"; mkdir -p "$M" "$W"
mount -t tmpfs -o size=48k tmpfs "$M" || exit 2
$E store init "$M/s" --oss-dirs $W/o0,$W/o1,$W/o2,$W/o3,$W/o4 --code raid5 --stripe-unit 4096 --write-path $WPATH >/dev/null
acked=0
for i in $(seq 1 400); do
  head -c $((RANDOM % 9000 + 1)) /dev/urandom > "$W/d$i"
  if $E store put "$M/s" n$i < "$W/d$i" 2>"$W/err"; then acked=$i; else echo "put n$i refused: $(cat "$W/err")"; break; fi
done
echo "$acked puts acknowledged; the metadata disk: $(df -k "$M" | tail -1 | awk '{print $5}') used"
fails=0
for c in "ls $M/s" "status $M/s" "get $M/s n1" "read $M/s n1 --offset 0 --length 1"; do
  $E store $c >/dev/null 2>"$W/err"; rc=$?; echo "$c: rc=$rc $(head -c 100 "$W/err")"; [ $rc != 0 ] && fails=$((fails+1))
done
mount -o remount,size=256k "$M"
bad=0; for i in $(seq 1 $acked); do $E store get "$M/s" n$i 2>/dev/null | cmp -s - "$W/d$i" || bad=$((bad+1)); done
echo "after freeing space: $bad of $acked acknowledged files wrong or unreadable"
umount "$M"
[ $fails -gt 0 ] && { echo "READS REFUSED on a full metadata disk (round $round)"; exit 1; }; echo CLEAN
done
