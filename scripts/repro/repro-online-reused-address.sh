#!/bin/sh
# Repro (review s8s, not CI): a loss `online` could not take back (its block's checksum failed)
# keeps its cache address on record; the planner reuses that address for another file's window
# bytes after the OSS is back; a second `fail` + `online` reads the new bytes there (their
# checksum verifies: checksums are seeded with the address, not the file or a version) and
# writes them into the first file: f1 reads f2's bytes with exit 0.
# Usage: repro-online-reused-address.sh   Env: EXARAID, REPRO_DIR.
E=${EXARAID:-/work/share8/exaraid-s8int}; D=${REPRO_DIR:-/tmp/s8s-ra}/s
rm -rf "$D"; mkdir -p "$(dirname "$D")"
$E store init "$D" --oss 6 --code raid6 --stripe-unit 4096 --write-path delayed >/dev/null
head -c 65536 /dev/zero | tr '\0' 'o' | $E store put "$D" f1
head -c 65536 /dev/zero | tr '\0' 'p' | $E store put "$D" f2
T1=$($E store delayed start "$D" f1)
head -c 4096 /dev/zero | tr '\0' 'A' | $E store write "$D" f1 --offset 8192
C=$(grep -l AAAA "$D"/oss-*/objects/*.cache); X=$(echo "$C" | sed 's,.*/oss-\([0-9]*\)/.*,\1,')
echo "window bytes A of f1 8192..12288 cached on OSS $X ($C)"
$E store fail "$D" --oss "$X"; echo "fail rc=$?"
# The disk comes back with that block damaged (a bad sector, say): its checksum fails.
printf 'damaged!' | dd of="$C" bs=1 seek=100 conv=notrunc 2>/dev/null
$E store online "$D" --oss "$X"; echo "online rc=$?"
$E store status "$D" | grep LOST
$E store delayed end "$D" "$T1" >/dev/null 2>&1; echo "END T1 rc=$? (names the loss)"
T2=$($E store delayed start "$D" f2)
head -c 4096 /dev/zero | tr '\0' 'B' | $E store write "$D" f2 --offset 8192; echo "write B into f2's window rc=$?"
grep -l BBBB "$D"/oss-*/objects/*.cache
$E store fail "$D" --oss "$X"; echo "fail again rc=$?"
$E store online "$D" --oss "$X"; echo "online again rc=$?"
$E store read "$D" f1 --offset 8192 --length 4096 | head -c 16; echo " <- f1 8192.. rc=$? (acked: A, or a refusal naming it lost; never B)"
$E store read "$D" f2 --offset 8192 --length 4096 | head -c 16; echo " <- f2 8192.."
$E store status "$D" | grep LOST
