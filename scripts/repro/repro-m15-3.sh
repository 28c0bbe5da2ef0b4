#!/bin/bash
# M15-3 (review s15m): a store directory that lost its superblock and its journal: every command says
# "holds an exaraid store's state ... do not run `exaraid store init` here", but `init` with new OSS
# directories runs, exit 0, and writes an empty state over the old store's file table.
# Usage: EXARAID=... repro-m15-3.sh SCRATCH
set -u
E=${EXARAID:?}; D=$1
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 3 --code raid5 --stripe-unit 4096 > /dev/null
head -c 9000 /dev/urandom | $E store put s f
rm s/superblock s/journal
$E store ls s; echo "ls rc $?"
mkdir o0 o1 o2
$E store init s --oss-dirs o0,o1,o2 --code raid5 --stripe-unit 4096; echo "init rc $?"
$E store ls s; echo "ls rc $? (the old file table is gone; s/oss-* still hold f's objects)"
