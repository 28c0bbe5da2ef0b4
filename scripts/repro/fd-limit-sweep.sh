#!/bin/bash
# R12 probe: every command under a tiny `ulimit -n` (N), 11 OSSs rs 8+3; then with a normal
# limit: every file exact? any OSS recorded failed that we did not fail?
E=${EXARAID:-exaraid}; R=${REPRO_DIR:-/tmp/repro-r12-fd}; WP=${WPATH:-wcl}
for N in ${NS:-12 14 16 18 20 22 24 28 32 40}; do
  D=$R/s$N; rm -rf $D; mkdir -p $R
  $E store init $D --oss 11 --code rs --k 8 --m 3 --stripe-unit 4096 --write-path $WP >/dev/null || exit 1
  for i in 1 2 3 4 5 6; do head -c $((40000 + i*7777)) /dev/urandom > $R/f$i; $E store put $D f$i < $R/f$i; done
  head -c 5000 /dev/urandom > $R/w
  out=""
  r() { ( ulimit -n $N; "$E" store "$@" ) >/dev/null 2>$R/err; rc=$?; out="$out | $* rc=$rc $(head -c 160 $R/err | tr '\n' ' ')"; }
  r write $D f2 --offset 3000 < $R/w; [ $rc = 0 ] && dd if=$R/w of=$R/f2 bs=1 seek=3000 conv=notrunc status=none
  r put $D f7 < $R/f1; [ $rc = 0 ] && cp $R/f1 $R/f7
  r get $D f3
  r flush $D
  r scrub $D
  r fail $D --oss 4
  r rebuild $D --oss 4
  r status $D
  # normal limit: check
  bad=""
  for f in $R/f?; do b=$(basename $f); [ -f $D/../$b.skip ] && continue
    $E store get $D $b > $R/got 2>/dev/null; g=$?
    if [ $b = f7 ] && ! [ -f $R/f7 ]; then continue; fi
    cmp -s $R/got $f || bad="$bad $b(rc=$g)"; done
  st=$($E store status $D --json 2>/dev/null | python3 -c 'import json,sys; j=json.load(sys.stdin); print([o["index"] for o in j["oss"] if not o["healthy"]])')
  sc=$($E store scrub $D 2>&1 | tail -1)
  echo "N=$N failed=$st bad=[$bad] scrub: $sc"
  echo "   $out" | cut -c1-1500
  rm -f $R/f7
done
