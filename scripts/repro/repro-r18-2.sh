#!/usr/bin/env bash
# R18-2 (s18r, low): `store init` of a NEW store whose directory is one of an existing store's
# own file names (S1/state.tmp; also S1/journal.tmp) is accepted; S1 can never checkpoint again
# (every command warns of a failing disk). R17-5's check covers `rebuild --to` only (and s18c
# takes `init --oss-dirs`); `init DIR` itself is a third way in.
# usage: EXARAID=... repro-r18-2.sh [DIR] [NAME=state.tmp]
E=${EXARAID:?}; D=${1:-/dev/shm/s18r-r2}; N=${2:-state.tmp}; rm -rf "$D"; mkdir -p "$D"
"$E" store init "$D/s1" --oss 3 --code raid5 --stripe-unit 4096 >/dev/null || exit 1
head -c 5000 /dev/urandom | "$E" store put "$D/s1" f
"$E" store init "$D/s1/$N" --oss 3 --code raid5 --stripe-unit 4096; echo "init at s1/$N rc=$? (expected: refused, nothing made)"
printf abc | "$E" store write "$D/s1" f --offset 10; echo "write to s1 rc=$?"
"$E" store ls "$D/s1"; echo "ls rc=$?"
rm -rf "$D"
