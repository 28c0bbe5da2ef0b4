#!/bin/bash
# R17-5 BAD INPUT / BAD ERROR (low): `rebuild --to DIR/state.tmp` (a new directory inside the store
# directory named like the store's own temporary checkpoint file) is accepted; the state checkpoint
# can never be written again: the rebuild ends "error: writing s/state: Is a directory", and every
# later command warns "the state checkpoint was not written (... Is a directory) ... the disk
# holding s may be failing. Check it (SMART) ...", the journal growing without end. Data stays right.
# usage: EXARAID=... repro-r17-5.sh DIR [NAME=state.tmp]
set -u; E="timeout 60 ${EXARAID:?}"; D=$1; N=${2:-state.tmp}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code raid6 --stripe-unit 4096 >/dev/null
head -c 100000 /dev/urandom > a; $E store put s a < a
$E store fail s --oss 1 >/dev/null
$E store rebuild s --oss 1 --to $D/s/$N > out 2>err; echo "rebuild --to s/$N rc $?: $(cat out) $(head -c 200 err)"
$E store status s 2>err | sed -n 4p | cut -c1-100; echo "status stderr: $(head -c 300 err)"
for i in 1 2 3; do $E store put s b$i < a 2>/dev/null; done
ls -la s/journal | awk '{print "journal bytes:", $5}'
$E store get s a | cmp - a && echo "get exact"
