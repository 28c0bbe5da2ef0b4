#!/bin/bash
# R15-2: a store directory whose `state` or `superblock` file is missing (a real missing file: a
# mistaken rm, a restore that skipped it, fs damage). state: every command fails with the bare
# "reading DIR/state: No such file or directory (os error 2)", nothing on what to do; superblock
# (state, journal and labelled OSS dirs all there): "DIR has no superblock: it is not an exaraid store
# (create one with `exaraid store init`)", and that init then refuses ("OSS directory ... is not empty
# ... pick an empty directory"): circular advice on a directory that plainly is a store.
# Usage: EXARAID=... repro-r15-2.sh SCRATCH
set -u
E=${EXARAID:?}; D=$1
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 5 --code raid6 --stripe-unit 4096 > /dev/null
head -c 40000 /dev/urandom > f; $E store put s f < f
cp -a s pristine
rm s/state; echo "--- state missing:"; $E store get s f > /dev/null; $E store status s > /dev/null
rm -rf s; cp -a pristine s
rm s/superblock; echo "--- superblock missing:"; $E store get s f > /dev/null; ls s
$E store init s --oss 5 --code raid6 --stripe-unit 4096
