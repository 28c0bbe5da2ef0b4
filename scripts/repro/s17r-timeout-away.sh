#!/bin/bash
# s17r: a delayed window's timeout fires (at the next command's open, here `status`) while one
# OSS's directory is away (unmounted for a moment); the disk comes back; `online` of it must take
# back the window bytes whose only copy is in its cache zone (they are intact). Also without the
# timeout (END while away). usage: EXARAID=... s17r-timeout-away.sh DIR [END=0|1]
set -u; E="timeout 60 ${EXARAID:?}"; D=$1; END=${2:-0}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss-dirs $(echo $D/o{0..6} | tr ' ' ,) --code rs --k 4 --m 3 --stripe-unit 4096 --write-path delayed --window-timeout-ms 1500 >/dev/null
head -c 70000 /dev/urandom > a; $E store put s a < a; cp a model
tok=$($E store delayed start s a)
for off in 1000 30000 52000; do head -c 9000 /dev/urandom > w; $E store write s a --offset $off < w
  python3 -c "m=bytearray(open('model','rb').read());w=open('w','rb').read();m[$off:$off+len(w)]=w;open('model','wb').write(m)"; done
mv o2 o2.away
if [ $END = 1 ]; then $E store delayed end s $tok 2>&1 | head -c 300; echo; else sleep 2; $E store status s | grep -i "LOST\|FAIL\|MISSING\|window" | cut -c1-200; fi
mv o2.away o2
$E store status s | grep -i "LOST\|FAIL\|MISSING" | cut -c1-200
$E store online s --oss 2 2>&1 | tail -2 | cut -c1-300
$E store get s a > got 2>err; echo "get rc $? $(head -c 200 err)"; cmp got model && echo "EXACT (every window byte back)"
$E store status s | grep -i "LOST" | cut -c1-200
