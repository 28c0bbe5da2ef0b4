#!/bin/bash
# M15-1 (review s15m; LOST false + BAD ERROR): `rebuild` of failed OSS 1 after a journal tail cut, while
# OSS 3 is merely unmounted (never failed on record, every byte intact), names OSS 3's written bytes
# LOST in every written stripe ("cut off while this OSS was failed": it never was), and OSS 1's in every
# written stripe instead of those changed while it was failed. OSS 3 mounted back: its bytes stay LOST.
# main 53e949b: one range (OSS 1, bytes 4096..8192: the documented price). a2549b3: six.
# Usage: EXARAID=... repro-m15-1.sh SCRATCH
set -u
E=${EXARAID:?}; D=$1
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 5 --code raid6 --stripe-unit 4096 --write-path rmw > /dev/null
python3 -c "import sys; sys.stdout.buffer.write(bytes((i*31+7)%251 for i in range(60000)))" > f
$E store put s f < f
$E store fail s --oss 1
python3 -c "import sys; sys.stdout.buffer.write(b'\xab'*1000)" > w
$E store write s f --offset 100 < w
python3 - <<'P'
b=bytearray(open('f','rb').read()); b[100:1100]=b'\xab'*1000; open('f.want','wb').write(b)
P
printf '\x10\x00\x00\x00\x00' >> s/journal     # a torn last record (an append a kill cut short)
mv s/oss-3 s/oss-3.away                           # OSS 3 unmounted: not failed, its bytes intact
$E store rebuild s --oss 1 2>/dev/null; echo "rebuild rc $?"
mv s/oss-3.away s/oss-3                           # mounted back
$E store status s 2>/dev/null | grep "^LOST" | sed 's/ (OSS \([0-9]\):.*/ OSS \1/'
$E store get s f > got 2>/dev/null; echo "get rc $?"
