#!/bin/bash
# R16-2 (LOST by bad input): `put` with fd 0 open WRITE-ONLY (reads fail EBADF) replaces the file
# with an empty one, exit 0. s15f's closed-stdin probe checks only that fd 0 is open; Rust's
# Stdin maps EBADF to end of input. usage: EXARAID=... repro-r16-2.sh DIR
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 100000 /dev/urandom > f; $B store put s f < f; echo "put f rc $?"; $B store ls s
$B store put s f 0>$D/wronly; echo "put f with fd 0 write-only: rc $? (expected: refused, nothing changed)"
$B store ls s
$B store get s f | cmp - f && echo "f intact" || echo "f LOST: replaced by an empty file"
$B store put s g <&-; echo "control, stdin closed: rc $? (refused by s15f's probe)"
