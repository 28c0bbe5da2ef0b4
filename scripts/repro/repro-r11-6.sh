#!/bin/bash
# Review s11r R11-6 (DOC / BAD ERROR, low): docs/store.md treats a file-size limit (`ulimit -f`)
# like a full metadata disk (clean error before acknowledging; a checkpoint that cannot be
# written is a warning, exit 0). exaraid does not ignore SIGXFSZ, so under a plain `ulimit -f`
# the kernel kills it (exit 153, "File size limit exceeded"): a put whose zone file passes the
# limit dies instead of "OSS ... is full"; a put whose only oversize file is the closing state
# checkpoint is durable (it reads back) yet exits 153. crates/cli/tests/cli/store_full_disks.rs
# runs the CLI under `trap '' XFSZ`, so CI never sees the signal.
# Usage: EXARAID=... scripts/repro/repro-r11-6.sh [DIR]
E=${EXARAID:-target/release/exaraid}; D=${1:-/tmp/repro-r11-6}
rm -rf "$D"; mkdir -p "$D"; $E store init "$D/s" --oss 5 --code raid5 --stripe-unit 4096 >/dev/null
for i in $(seq 1 60); do echo "file $i" | $E store put "$D/s" longname-for-state-growth-$i; done
head -c 3000 /dev/urandom > "$D/a"; head -c 300000 /dev/urandom > "$D/big"
echo "state file: $(stat -c %s "$D/s/state") bytes; limit 8 KiB"
(ulimit -f 8; $E store put "$D/s" newone < "$D/a"); echo "put (checkpoint past the limit) rc=$?"
$E store get "$D/s" newone | cmp -s - "$D/a" && echo "  ... and yet the put took effect: it reads back"
(ulimit -f 50; $E store put "$D/s" big < "$D/big"); echo "put (zone file past the limit) rc=$?"
(ulimit -f 50; trap '' XFSZ; $E store put "$D/s" big < "$D/big"); echo "the same with SIGXFSZ ignored rc=$? (the documented clean refusal)"
