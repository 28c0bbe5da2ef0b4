#!/bin/bash
# R15-3 (second path): an OSS whose metadata epoch file refuses writes (every other file of the OSS fine) is never
# told a new epoch, silently ("best effort": status says ok, no warning), and after 1,024 epochs (about
# 512 writing commands) the WHOLE store refuses to open: "OSS 2 ... 1024 epochs behind ... Move OSS 2's
# directory aside". The refusal is right by s14d's lineage rule; what is wrong is the silence before it.
# The write failure is injected with scripts/eioshim.c FAILWRITESUNDER (a per-file write error: a bad
# spot of the disk under that file, a permission or attribute on it).
# Usage: EXARAID=... EIOSHIM=/tmp/s15r-eioshim.so repro-r15-3b.sh SCRATCH [COMMANDS]
set -u
E=${EXARAID:?}; SH=${EIOSHIM:-/tmp/s15r-eioshim.so}; D=$1; N=${2:-530}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 5 --code raid6 --stripe-unit 4096 > /dev/null
head -c 50000 /dev/urandom > f; $E store put s f < f
for i in $(seq 1 $N); do
  head -c 100 /dev/urandom | LD_PRELOAD=$SH FAILWRITESUNDER=$D/s/oss-2/exaraid-epoch $E store write s f --offset $(( (i * 997) % 49000 )) 2> err.txt
  rc=$?
  if [ $rc != 0 ]; then echo "write $i: rc $rc: $(head -c 600 err.txt)"; break; fi
  if [ $((i % 100)) = 0 ]; then echo "write $i rc 0; OSS 2 told $(cat s/oss-2/exaraid-epoch.json), OSS 1 told $(cat s/oss-1/exaraid-epoch.json); status OSS 2: $($E store status s | awk '$1==2{print $2}')"; fi
done
echo "--- without the shim:"
$E store get s f > /dev/null; echo "get rc $?"
$E store status s 2>&1 | head -3 | cut -c1-400
