#!/bin/bash
# R16-4 PANIC (low): `online --oss I` when OSS I's label exists but cannot be read (EIO on a
# failing disk; here, without a shim, the label path is a directory: read fails EISDIR) panics
# at repair.rs `assert!(fresh.healthy())` (exit 101). Nothing is changed.
# usage: EXARAID=... repro-r16-4.sh DIR   (READEIO=/tmp/s16r-readeio.so for the EIO variant too)
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 >/dev/null
head -c 50000 /dev/urandom > f; $B store put s f < f
$B store fail s --oss 1 >/dev/null
cp -a s s-eio
mv s/oss-1/exaraid-oss.json label.saved; mkdir s/oss-1/exaraid-oss.json
$B store online s --oss 1; echo "online (label path a directory) rc $? (expected 1, a refusal naming the label)"
rmdir s/oss-1/exaraid-oss.json; mv label.saved s/oss-1/exaraid-oss.json
$B store get s f | cmp -s - f && echo "after: get exact"; $B store online s --oss 1 >/dev/null && echo "after: online with the label back rc 0"
if [ -n "${READEIO:-}" ]; then
  LD_PRELOAD=$READEIO EIOREAD=oss-1/exaraid-oss.json $B store online s-eio --oss 1; echo "online (EIO reading the label) rc $?"
fi
