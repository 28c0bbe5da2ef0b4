#!/bin/sh
# Review s6r, R6-5: a WCL write past half of Store::file_bytes_max (refused past the max: review
# s5r R1) is acknowledged, but with an OSS failed every settle of it fails with EFBIG: it reserves
# a per-file cache object (oss-0/objects/0.cache) at twice the zone-file limit
# (strace: fallocate(.../0.cache, 35184313344000, 4198400) = -1 EFBIG for xcode p=5 4 MiB).
# `rebuild` and `rm` then fail ("needs room that is not there ... Free space": no amount of space
# helps): redundancy cannot be restored while the file exists, and the file cannot be removed.
# Usage: EXARAID=.../exaraid sh scripts/repro/repro-degraded-settle-efbig.sh [DIR]; exit 1 = reproduced.
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/s6r-repro-efbig}
rm -rf "$D"
$E store init "$D" --oss 6 --code raid6 --k 4 --stripe-unit 1048576 --write-path wcl >/dev/null || exit 2
OFF=38665048187003   # 0.55 x the store's largest file (70300087615488 bytes)
printf 'AB' | $E store write "$D" a --offset $OFF || exit 2
$E store fail "$D" --oss 1 >/dev/null || exit 2
$E store rebuild "$D" --oss 1; rb=$?
$E store rm "$D" a; rm_rc=$?
echo "rebuild rc=$rb rm rc=$rm_rc"
rm -rf "$D"
[ $rb -ne 0 ] && [ $rm_rc -ne 0 ] && { echo REPRODUCED; exit 1; }
echo "not reproduced"
