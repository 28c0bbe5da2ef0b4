#!/bin/bash
# s15r review tool: a put of more than 4 GiB through a pipe (not tried before), then get, a
# read across the 4 GiB boundary, a write there, fail + degraded read of that range, rebuild, scrub.
# Usage: EXARAID=... s15r-big-put.sh SCRATCH [BYTES]   (needs ~1.3 x BYTES of disk in SCRATCH)
set -u
E=${EXARAID:?}; D=$1; N=${2:-4400000000}
rm -rf $D; mkdir -p $D; cd $D
gen() { openssl enc -aes-128-ctr -K 000102030405060708090a0b0c0d0e0f -iv 0 -nosalt < /dev/zero 2>/dev/null | head -c $N; }
$E store init s --oss 5 --code raid5 --write-path rmw > /dev/null || exit 9
S0=$(date +%s)
gen | $E store put s big; echo "put rc $? in $(( $(date +%s) - S0 )) s"
$E store ls s
A=$(gen | sha256sum | cut -c1-16); B=$($E store get s big | sha256sum | cut -c1-16); echo "sha stream $A get $B"
O=$(( (1<<32) - 3000 ))
gen | tail -c +$((O+1)) | head -c 6000 > expect; $E store read s big --offset $O --length 6000 > got; cmp got expect && echo "read across 4 GiB: same"
head -c 6000 /dev/urandom > w; $E store write s big --offset $O < w; echo "write rc $?"
$E store read s big --offset $O --length 6000 | cmp - w && echo "read back: same"
$E store fail s --oss 2 > /dev/null; $E store read s big --offset $O --length 6000 | cmp - w && echo "degraded: same"
$E store read s big --offset $(( N - 5000 )) --length 5000 | cmp - <(gen | tail -c 5000) && echo "degraded tail: same"
$E store rebuild s --oss 2; echo "rebuild rc $?"
$E store scrub s | tail -1
