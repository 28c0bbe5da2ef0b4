#!/bin/bash
# s23r R23-1: >8 MiB of window bytes lost with a failed OSS: `fail` advises online / rebuild --to, neither takes them back.
# usage: bash s23r-takeback-8mib.sh  (binary /tmp/s23r-bin/exaraid; scratch /tmp/s23r-w; sed the `rebuild ... --to` line to `online $S --oss 1` for (a))
set -u
E=/tmp/s23r-bin/exaraid; S=/tmp/s23r-w/s; rm -rf $S /tmp/s23r-w/new*
$E store init $S --oss 6 --code raid6 --stripe-unit 65536 --write-path delayed >/dev/null
head -c 300000 /dev/urandom > /tmp/s23r-w/base; $E store put $S f < /tmp/s23r-w/base
T=$($E store delayed start $S f)
head -c 60000000 /dev/urandom > /tmp/s23r-w/win
$E store write $S f --offset 100000 < /tmp/s23r-w/win; echo write rc $?
$E store fail $S --oss 1; echo fail rc $?
$E store status $S | grep -c LOST
$E store rebuild $S --oss 1 --to /tmp/s23r-w/new1; echo rebuild rc $?
$E store get $S f > /tmp/s23r-w/got; echo get rc $?
$E store delayed end $S $T; echo end rc $?
$E store get $S f > /tmp/s23r-w/got2; echo get rc $?
python3 - <<'P'
b=open('/tmp/s23r-w/base','rb').read(); w=open('/tmp/s23r-w/win','rb').read()
exp=bytearray(b); exp.extend(b'\0'*(100000+len(w)-len(exp))); exp[100000:100000+len(w)]=w
for fn in ('/tmp/s23r-w/got','/tmp/s23r-w/got2'):
    g=open(fn,'rb').read(); print(fn,len(g),len(exp))
    if g: 
        bad=[i for i in range(min(len(g),len(exp))) if g[i]!=exp[i]]; print('bad',len(bad),bad[:3])
P
