#!/bin/bash
# Review s12r R12-6 (PANIC, low; and WRONG BYTES on a hand-edited superblock): a superblock whose
# checksum is right but whose values are not those the store was made with.
# Usage: EXARAID=... repro-r12-6.sh [DIR]
E=${EXARAID:-exaraid}; D=${1:-/tmp/repro-r12-6}; HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$D"; mkdir -p "$D"; cd "$D"
$E store init s0 --oss 5 --code raid5 --stripe-unit 4096 --write-path wcl >/dev/null
head -c 30000 /dev/urandom > A; $E store put s0 f < A
for mod in "j['element_bytes']=4095" "j['code']['k']=3" "j['write_path']='rmw'"; do
  rm -rf s; cp -a s0 s
  python3 "$HERE/superblock-edit.py" s/superblock "j['oss_dirs']=[d.replace('/s0/','/s/') for d in j['oss_dirs']]"
  python3 "$HERE/superblock-edit.py" s/superblock "$mod"
  $E store get s f > got 2> err; rc=$?
  echo "[$mod] get rc=$rc $(cmp -s got A && echo 'right bytes' || echo 'NOT the stored bytes') $(grep -m1 -e panicked -e error err)"
done
