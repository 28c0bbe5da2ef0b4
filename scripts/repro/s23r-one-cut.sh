#!/bin/bash
# s23r R23-3: one write killed at a torn block in plan order, nothing else; then get.
# e.g. bash s23r-one-cut.sh rmw 80000 18386 60401 5 --code raid6   (binary /tmp/s23r-bin/exaraid; scratch /tmp/s23r-w)
# usage: one-cut.sh WP SIZE OFF LEN N [CODE...]
E=/tmp/s23r-bin/exaraid; S=/tmp/s23r-w/oc; rm -rf $S
WP=$1 SIZE=$2 OFF=$3 LEN=$4 N=$5; shift 5
$E store init $S --oss 6 --stripe-unit 12288 --write-path $WP ${@:---code rs --k 4 --m 2} >/dev/null || exit 9
python3 -c "import random; open('/tmp/s23r-w/oc.old','wb').write(random.Random(1).randbytes($SIZE)); open('/tmp/s23r-w/oc.new','wb').write(random.Random(2).randbytes($LEN))"
$E store put $S f < /tmp/s23r-w/oc.old
EXARAID_KILL_AT=write-torn-block:$N EXARAID_KILL_IN_PLAN_ORDER=1 $E store write $S f --offset $OFF < /tmp/s23r-w/oc.new 2>&1 | grep -v "^ " | tail -2 | cut -c1-300
$E store get $S f > /tmp/s23r-w/oc.got 2>/tmp/s23r-w/oc.err; echo "get rc $? $(cut -c1-400 /tmp/s23r-w/oc.err)"
