#!/bin/sh
# R21-1 repro: raid6 rmw, a write killed right after its first journal record,
# then one OSS's home zone file emptied (one fault), then get.
E=${EXARAID:?}; S=${1:-/tmp/s21r-r21-1}; OSS=${OSS:-5}; KP=${KP:-journal-record:1}; rm -rf "$S"
python3 -c "import random,sys; sys.stdout.buffer.write(random.Random(1).randbytes(56644))" > "$S.old"
python3 -c "import random,sys; sys.stdout.buffer.write(random.Random(2).randbytes(19371))" > "$S.new"
$E store init "$S" --oss 6 --code raid6 --stripe-unit 4096 >/dev/null
$E store put "$S" f < "$S.old"
EXARAID_KILL_AT=$KP $E store write "$S" f --offset 14992 < "$S.new"; echo "write rc=$?"
: > "$S/oss-$OSS/objects/0.data"
$E store get "$S" f > "$S.got"; echo "get rc=$?"
python3 - "$S" <<'PY'
import sys; S = sys.argv[1]
old = open(S + '.old', 'rb').read(); new = open(S + '.new', 'rb').read(); got = open(S + '.got', 'rb').read()
cut = bytearray(old); cut[14992:14992 + len(new)] = new
bad = [i for i in range(len(got)) if got[i] != old[i] and got[i] != cut[i]]
print('len', len(got), 'bytes neither old nor new:', len(bad), 'first', bad[:2], 'last', bad[-1:], 'zeros among them', sum(1 for i in bad if got[i] == 0))
PY
