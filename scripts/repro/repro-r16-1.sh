#!/bin/bash
# R16-1 (availability, real bit flip on ONE disk): one flipped bit in ONE OSS's label
# (exaraid-oss.json: no checksum) refuses every command of the store, `status`, `fail` and
# `rebuild` of that OSS included; a MISSING label instead leaves the store usable (decoded).
# usage: EXARAID=... repro-r16-1.sh DIR      (sweep of every byte: s16r-label-sweep.sh)
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 >/dev/null
head -c 50000 /dev/urandom > f; $B store put s f < f
cp -a s s-missing
flip() { python3 -c "import sys;p=sys.argv[1];o=int(sys.argv[2]);b=bytearray(open(p,'rb').read());b[o]^=int(sys.argv[3]);open(p,'wb').write(b)" "$@"; }
o=$(grep -bo '"settings": "' s/oss-1/exaraid-oss.json | cut -d: -f1); flip s/oss-1/exaraid-oss.json $((o+12)) 1      # one bit of the quote opening "settings"'s value
echo "--- one bit flipped in OSS 1's label (raid6: tolerates 2 OSSs down)"
$B store get s f > got; echo "get rc $? (expected 0: decode around OSS 1)"
$B store status s >/dev/null; echo "status rc $?"
$B store fail s --oss 1 >/dev/null; echo "fail --oss 1 rc $?"
$B store rebuild s --oss 1 >/dev/null; echo "rebuild --oss 1 rc $?"
cp -a s-missing s2; o=$(grep -bo '"index": 1' s2/oss-1/exaraid-oss.json | cut -d: -f1); flip s2/oss-1/exaraid-oss.json $((o+9)) 2   # "index": 1 -> 3
$B store get s2 f > /dev/null; echo "index digit flipped: get rc $?"
cp -a s-missing s3; flip s3/oss-1/exaraid-oss.json 3 1   # a quote: JSON does not parse
$B store get s3 f > /dev/null; echo "JSON broken: get rc $?"
cp -a s-missing s4; o=$(grep -bo '"settings": "' s4/oss-1/exaraid-oss.json | cut -d: -f1); flip s4/oss-1/exaraid-oss.json $((o+14)) 1   # "code" -> "bode"
$B store get s4 f > /dev/null; echo "a letter of settings flipped: get rc $? (advice blames the superblock, which is intact)"
rm s-missing/oss-1/exaraid-oss.json
$B store get s-missing f | cmp -s - f; echo "control, label removed: get rc/cmp $? (0 = reads, OSS 1 MISSING)"
echo "--- worse: OSS 1 already FAILED on record (its disk dying), then its label damaged"
rm -rf f1; $B store init f1 --oss 6 --code raid6 --stripe-unit 4096 >/dev/null; $B store put f1 f < f
$B store fail f1 --oss 1 >/dev/null; flip f1/oss-1/exaraid-oss.json 3 1
$B store get f1 f > /dev/null; echo "get rc $? (expected 0: OSS 1 is failed on record)"
$B store rebuild f1 --oss 1 --to $D/newdisk > /dev/null; echo "rebuild --oss 1 --to NEWDIR rc $? (the documented replacement of a dead disk)"
