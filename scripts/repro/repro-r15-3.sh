#!/bin/bash
# R15-3: an OSS directory that is down (unmounted / moved away) while ~512 writing commands run on
# files that do not touch it (more OSSs than the stripe width: files land round robin) is never told the
# new epochs and never recorded failed; when its disk comes back, EVERY command (get of any file,
# status) is refused: "OSS 7 ... 1024 epochs behind ... Move OSS 7's directory aside ... fail ...
# rebuild", a full rebuild of a disk whose contents are current for every file it holds.
# Usage: EXARAID=... repro-r15-3.sh SCRATCH [COMMANDS]
set -u
E=${EXARAID:?}; D=$1; N=${2:-530}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 8 --code raid5 --k 4 --stripe-unit 4096 > /dev/null
for n in a b c; do head -c 30000 /dev/urandom > $n; $E store put s $n < $n; done
for o in 0 1 2 3 4 5 6 7; do echo "oss-$o: $(ls s/oss-$o/objects | tr '\n' ' ')"; done
echo "--- OSS 7 (holds only file b's objects) goes down"
mv s/oss-7 oss-7-away
$E store status s | awk '$1==7'
for i in $(seq 1 $N); do
  head -c 100 /dev/urandom > w; $E store write s a --offset $(( (i * 997) % 29000 )) < w 2> err.txt || { echo "write $i rc $?: $(head -c 300 err.txt)"; break; }
  dd if=w of=a bs=1 seek=$(( (i * 997) % 29000 )) conv=notrunc status=none
done
echo "after $N writes to a: $($E store status s | awk '$1==7')"
$E store get s b | cmp -s - b && echo "get b (degraded): same"
echo "--- OSS 7 comes back"
mv oss-7-away s/oss-7
$E store get s a > got 2> err.txt; echo "get a rc $?: $(head -c 500 err.txt)"; cmp -s got a && echo "a same"
$E store get s b > got 2> err.txt; echo "get b rc $?"; cmp -s got b && echo "b same"
$E store status s > /dev/null 2> err.txt; echo "status rc $?"
