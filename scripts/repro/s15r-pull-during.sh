#!/bin/bash
# s15r review tool: an OSS directory pulled (renamed away) while CMD runs and put back right after it,
# then get (== model), status, online of whatever is failed, get, scrub.
# Usage: EXARAID=... s15r-pull-during.sh SCRATCH CMD DELAY_MS [CODE] [WPATH]
#   CMD: flush | rebuild | scrub | end | online
set -u
E=${EXARAID:?}; D=$1; CMD=$2; T=$3; CODE=${4:-raid6}; WP=${5:-wcl}
rm -rf $D; mkdir -p $D; cd $D
$E store init s --oss 6 --code $CODE --stripe-unit 4096 --write-path $WP >/dev/null || exit 9
python3 - <<'PY'
import random
r=random.Random(3); open("f","wb").write(r.randbytes(6_000_000)); open("g","wb").write(r.randbytes(3_000_000))
PY
cp f model
$E store put s f < f || exit 9
$E store put s g < g || exit 9
TOK=""
if [ $WP = delayed ]; then TOK=$($E store delayed start s f); fi
if [ $CMD = rebuild ] || [ $CMD = online ]; then $E store fail s --oss 1 >/dev/null; fi
python3 - <<'PY'
import random, subprocess, os
r=random.Random(5); m=bytearray(open("model","rb").read())
for i in range(40):
    off=r.randrange(0,5_900_000); b=r.randbytes(r.randrange(1,90000)); b=b[:6_000_000-off]
    p=subprocess.run([os.environ["EXARAID"],"store","write","s","f","--offset",str(off)],input=b,capture_output=True)
    assert p.returncode==0, p.stderr
    m[off:off+len(b)]=b
open("model","wb").write(m)
PY
case $CMD in
  flush) A="flush s";; rebuild) A="rebuild s --oss 1";; scrub) A="scrub s --repair";; end) A="delayed end s $TOK";; online) A="online s --oss 1";;
esac
$E store $A > out.txt 2> err.txt & P=$!
sleep $(python3 -c "print($T/1000)")
mv s/oss-3 oss-3-away
wait $P; RC=$?
mv oss-3-away s/oss-3
echo "$CMD rc $RC: $(head -c 300 err.txt | tr '\n' ' ')"
$E store get s f > got 2> gerr.txt; G=$?
if [ $G = 0 ]; then cmp -s got model && echo "get f: same" || echo "get f: WRONG BYTES $(cmp got model | head -1)"; else echo "get f rc $G: $(head -c 300 gerr.txt)"; fi
$E store get s g | cmp -s - g && echo "get g same" || echo "get g DIFFERS/refused"
$E store status s 2>&1 | awk '$2!="ok" && $1 ~ /^[0-9]+$/ {print "status:", $0}'
for o in 0 1 2 3 4 5; do
  if $E store status s 2>/dev/null | awk -v o=$o '$1==o && $2!="ok"{f=1} END{exit !f}'; then
    $E store online s --oss $o > /dev/null 2> oerr.txt || { echo "online $o refused: $(head -c 250 oerr.txt)"; $E store rebuild s --oss $o >/dev/null 2>rerr.txt || echo "rebuild $o: $(head -c 200 rerr.txt)"; }
  fi
done
$E store get s f > got 2> gerr.txt; G=$?
if [ $G = 0 ]; then cmp -s got model && echo "after: get f same" || echo "after: get f WRONG BYTES $(cmp got model | head -1)"; else echo "after: get f rc $G: $(head -c 300 gerr.txt)"; fi
$E store scrub s > sc.txt 2>&1; echo "scrub rc $?: $(tail -1 sc.txt)"
