#!/bin/bash
# Review s12r R12-4 part b: `online` of an OSS whose directory is the OLD disk from before its
# in-place rebuild (rebuild, more writes, a second `fail`, the old disk put back, `online`):
# accepted ("OSS 1 is online again"), then `get` rc 0 with stale bytes.
# Usage: EXARAID=... repro-r12-4-online.sh [DIR]
E=${EXARAID:-exaraid}; D=${1:-/tmp/repro-r12-4-online}; rm -rf "$D"; mkdir -p "$D"; cd "$D"
$E store init s --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
head -c 100000 /dev/urandom > cur; $E store put s f < cur
upd() { head -c $2 /dev/urandom > w; $E store write s f --offset $1 < w || exit 1
        python3 -c "
c=bytearray(open('cur','rb').read()); b=open('w','rb').read(); c[$1:$1+len(b)]=b; open('cur','wb').write(c)"; }
for i in 1 2 3; do upd 0 60000; sleep 1.1; done
mv s/oss-1 old-disk-1; $E store fail s --oss 1 >/dev/null 2>&1; mkdir s/oss-1; $E store rebuild s --oss 1 | tail -1
upd 5000 40000
$E store fail s --oss 1 >/dev/null; echo "fail again rc=$?"
upd 70000 3000
rm -rf s/oss-1; mv old-disk-1 s/oss-1
$E store online s --oss 1 2>&1 | tail -2; echo "online rc=${PIPESTATUS[0]}"
$E store get s f > got 2> err; echo "get rc=$? $(cmp -s got cur && echo right || echo "WRONG BYTES: $(cmp -l got cur | wc -l)") $(head -c 200 err)"
