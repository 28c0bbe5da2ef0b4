#!/bin/bash
# R16b-3 BAD ERROR (low): a `write` to a NEW file refused because too many OSSs are out of service ("... No new
# failure was recorded and the operation was not completed", exit 1) leaves that file in the store, 0 bytes
# long, for good (ls lists it after the OSSs are back). `put` and `delayed start` of a new name in the same state
# leave nothing; a refused write past the end of an existing file leaves its size alone (controls).
# usage: EXARAID=... repro-r16b-3.sh DIR
set -u; B="timeout 60 ${EXARAID:?}"; D=$1; rm -rf $D; mkdir -p $D; cd $D
$B store init s --oss 6 --code raid6 --stripe-unit 4096 >/dev/null
head -c 50000 /dev/urandom > f; $B store put s f < f
$B store fail s --oss 0 >/dev/null; $B store fail s --oss 4 >/dev/null      # two dead disks on record
mv s/oss-2 away2                                                           # a third disk not mounted
head -c 7552 /dev/urandom | $B store write s newfile --offset 0 2>err; echo "write newfile rc $? ($(grep -o 'the operation was not completed' err))"
head -c 10 /dev/urandom | $B store put s newput 2>/dev/null; echo "put newput rc $?"
mv away2 s/oss-2
echo "--- ls after the disk is back (expected: f only)"; $B store ls s
$B store get s newfile | wc -c
