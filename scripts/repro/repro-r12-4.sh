#!/bin/bash
# Review s12r R12-4 (WRONG BYTES, exit 0): an OSS directory from BEFORE its rebuild (the old
# disk coming back at the OSS's path, e.g. after a reboot with fstab naming the old disk; or the
# OSS directory restored from a backup older than the rebuild) passes every check: same label
# (store id, index), its metadata epoch behind (allowed: "a rebuilt one"), and its generation
# AHEAD of the store's record (the rebuild reset it to 0; ahead is taken as a crash's harmless
# lead). Every element written since the disk left reads stale with exit 0.
# Without the rebuild in between the same restore is caught (generation behind: UNAVAILABLE).
# Usage: EXARAID=... repro-r12-4.sh [DIR]   (CODE=raid5|raid6, WPATH=rmw|wcl|delayed)
E=${EXARAID:-exaraid}; D=${1:-/tmp/repro-r12-4}; CODE=${CODE:-raid5}; WP=${WPATH:-rmw}
rm -rf "$D"; mkdir -p "$D"; cd "$D"
$E store init s --oss 5 --code $CODE --stripe-unit 4096 --write-path $WP >/dev/null
head -c 100000 /dev/urandom > cur; $E store put s f < cur
upd() { head -c $2 /dev/urandom > w; $E store write s f --offset $1 < w || exit 1
        python3 -c "
c=bytearray(open('cur','rb').read()); b=open('w','rb').read(); c[$1:$1+len(b)]=b; open('cur','wb').write(c)"; }
for i in 1 2 3; do upd 0 60000; sleep 1.1; done          # OSS 1 gathers generations
echo "OSS 1 extents log before it leaves: $(wc -c < s/oss-1/exaraid-extents.log) bytes"
mv s/oss-1 old-disk-1                                   # the disk drops out
$E store fail s --oss 1 >/dev/null 2>&1; echo "fail rc=$?"
mkdir s/oss-1; $E store rebuild s --oss 1 | tail -1       # rebuilt in place on a new empty disk
upd 5000 40000                                          # acknowledged writes after the rebuild
$E store get s f | cmp -s - cur && echo "after the rebuild: every byte right"
echo "rebuilt OSS 1 extents log: $(wc -c < s/oss-1/exaraid-extents.log) bytes"
rm -rf s/oss-1; mv old-disk-1 s/oss-1                   # the old disk is mounted there again
$E store get s f > got 2> err; rc=$?
echo "get rc=$rc stderr='$(cat err)': $(cmp -s got cur && echo 'right' || echo "WRONG BYTES: $(cmp -l got cur | wc -l) bytes differ from the acknowledged ones")"
$E store status s | sed -n 3,5p
$E store scrub s | tail -1; echo "scrub rc=${PIPESTATUS[0]}"
