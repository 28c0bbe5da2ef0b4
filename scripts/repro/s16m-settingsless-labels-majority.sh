#!/bin/bash
# Merge review s16m, M16-2: s16h's majority rule counts an OSS label without `settings`
# (every label of a store made before session 12; here emulated by deleting the field) as
# agreeing with the superblock. One label that carries settings (an OSS rebuilt by a
# session-12+ binary) then is outvoted: an edited superblock (R12-6) opens, that OSS is
# taken as damaged, and the store reads with the edited settings.
# Usage: EXARAID=/path/to/exaraid bash s16m-settingsless-labels-majority.sh
set -u
E=${EXARAID:-/work/target-lead/release/exaraid}
W=$(mktemp -d /dev/shm/s16m-repro.XXXXXX)
trap 'rm -rf "$W"' EXIT
cd "$W"
$E store init --oss 4 --code raid5 --stripe-unit 4096 s >/dev/null
head -c 300000 /dev/urandom > f
$E store put s a < f
# Emulate the labels of an older store: no settings field on OSSs 0, 2, 3 (OSS 1 keeps it,
# as a label a newer binary's rebuild writes).
for i in 0 2 3; do
  python3 - "s/oss-$i/exaraid-oss.json" <<'PY'
import json, sys
p = sys.argv[1]; j = json.load(open(p)); j.pop("settings", None); json.dump(j, open(p, "w"), indent=2)
PY
done
# Edit the superblock (R12-6): k=3 -> k=2, checksum recomputed, header version kept.
python3 - s/superblock "$@" <<'PY'
import json, sys
def crc32c(b):
    crc = 0xFFFFFFFF
    for x in b:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF
p = sys.argv[1]; raw = open(p, "rb").read()
hdr, body = raw.split(b"\n", 1)
j = json.loads(body); j["code"]["k"] = 2
nb = json.dumps(j, indent=2).encode() + (b"\n" if body.endswith(b"\n") else b"")
ver = hdr.split(b" ")[2]
open(p, "wb").write(b"EXARAID superblock %s len=%d crc32c=%08x\n" % (ver, len(nb), crc32c(nb)) + nb)
PY
echo "== status (expected: refused, the superblock was edited)"
$E store status s; echo "rc=$?"
echo "== get (expected: refused; compared with what was put)"
$E store get s a > got; rc=$?
echo "rc=$rc"
if [ $rc = 0 ]; then cmp got f && echo "same bytes" || echo "WRONG BYTES with exit 0"; fi
