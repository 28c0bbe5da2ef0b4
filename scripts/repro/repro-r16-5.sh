#!/bin/bash
# R16-5 (scrub silent about unreadable elements): every read of OSS 1's zone file fails EIO (bad
# sectors under it; the read shim), yet `scrub` and `scrub --repair` exit 0 with "corrupt
# elements: 0" and no FAILED line; `get` decodes around it with no word. The same element with a
# flipped bit is reported corrupt (exit 2) and repaired. A scrub is how latent sector errors are found.
# Needs: gcc -O2 -shared -fPIC -o /tmp/s16r-readeio.so scripts/repro/s16r-readeio-shim.c -ldl
# usage: EXARAID=... [READEIO=/tmp/s16r-readeio.so] repro-r16-5.sh DIR [WP=rmw]
set -u; B="timeout 60 ${EXARAID:?}"; SO=${READEIO:-/tmp/s16r-readeio.so}; D=$1; WP=${2:-rmw}
rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 --write-path $WP >/dev/null
head -c 50000 /dev/urandom > f; $B store put s f < f; $B store flush s >/dev/null 2>&1
ls s/oss-1/objects
bad() { LD_PRELOAD=$SO EIOREAD=oss-1/objects/0.data "$@"; }
echo "--- every read of OSS 1's objects/0.data fails EIO"
bad $B store scrub s; echo "scrub rc $? (expected 2: OSS 1's elements unreadable)"
bad $B store scrub s --repair; echo "scrub --repair rc $?"
bad $B store get s f > got 2>err; echo "get rc $?, stderr: '$(cat err)'"; cmp -s got f && echo "get exact (decoded)"
$B store status s | sed -n 4p
echo "--- control: one bit flipped in the same zone file instead"
python3 -c "p='s/oss-1/objects/0.data';b=bytearray(open(p,'rb').read());b[100]^=1;open(p,'wb').write(b)"
$B store scrub s; echo "scrub rc $?"
