#!/bin/bash
# R16b-2 (availability beyond tolerance by one tiny fault; BAD ERROR): raid6 with its 2 tolerated OSSs failed
# (dead disks, being replaced) and ONE bit flipped in a third OSS's 180-byte label: every command refuses,
# rebuild of the dead disks included, though every data byte of the third OSS is intact. The message says
# "or the file is restored" -- nothing keeps a copy, yet every field of the label (store_id, index,
# element_bytes, block_crc_seed, settings) is known from the superblock and the other labels.
# A label written by hand (another OSS's, index changed) brings everything back: proof nothing was lost.
# usage: EXARAID=... repro-r16b-2.sh DIR
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 >/dev/null
head -c 50000 /dev/urandom > f; $B store put s f < f
$B store fail s --oss 0 >/dev/null; $B store fail s --oss 5 >/dev/null     # two dead disks, on record
python3 -c "p='s/oss-1/exaraid-oss.json';b=bytearray(open(p,'rb').read());b[3]^=1;open(p,'wb').write(b)"   # one bit rots on OSS 1
$B store get s f > got 2>err; echo "get rc $? (data intact on 4 OSSs, 1 of them with a rotted label)"; fold -w 200 err | head -4
$B store rebuild s --oss 0 --to $D/new0 >/dev/null 2>&1; echo "rebuild --oss 0 --to NEW rc $? (the way to replace a dead disk)"
$B store status s > /dev/null 2>&1; echo "status rc $?"
sed 's/"index": 2/"index": 1/' s/oss-2/exaraid-oss.json > s/oss-1/exaraid-oss.json    # the label rewritten by hand
$B store get s f | cmp - f; echo "with the label rewritten by hand: get cmp rc $? (0: nothing was lost)"
echo "--- raid5 (tolerates 1): one dead disk + one bit in another OSS's label"
rm -rf r5; $B store init r5 --oss 5 --code raid5 --stripe-unit 4096 >/dev/null; $B store put r5 f < f; $B store fail r5 --oss 0 >/dev/null
python3 -c "p='r5/oss-1/exaraid-oss.json';b=bytearray(open(p,'rb').read());b[3]^=1;open(p,'wb').write(b)"
$B store get r5 f > /dev/null 2>&1; echo "raid5 get rc $?"; $B store rebuild r5 --oss 0 --to $D/r5new >/dev/null 2>&1; echo "raid5 rebuild --oss 0 --to NEW rc $?"
sed 's/"index": 2/"index": 1/' r5/oss-2/exaraid-oss.json > r5/oss-1/exaraid-oss.json
$B store get r5 f | cmp - f; echo "label rewritten by hand: get cmp rc $?"
