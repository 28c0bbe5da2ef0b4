#!/usr/bin/env bash
# s19r: a delayed window open on f; OSS I failed inside it (its window bytes recorded lost); more window
# writes over those bytes while it is failed; `online --oss I`; END; every byte must be the newest
# acknowledged or named lost. usage: EXARAID=... s19r-window-fail-online.sh [DIR] [CODE ARGS...]
set -u
E=${EXARAID:?}; D=${1:-/dev/shm/s19r-wfo}; shift || true
CODE=${*:---code raid6 --oss 6}
rm -rf $D; mkdir -p $D; S=$D/s
$E store init $S $CODE --stripe-unit 4096 --write-path delayed >/dev/null || exit 1
python3 - "$E" "$S" <<'PY'
import subprocess, sys, os, random
E, S = sys.argv[1], sys.argv[2]
def run(*a, inp=None):
    p = subprocess.run([E, 'store', *a], input=inp, capture_output=True); return p
rnd = random.Random(int(os.environ.get('SEED', '1')))
model = bytearray(rnd.randbytes(60000))
assert run('put', S, 'f', inp=bytes(model)).returncode == 0
tok = run('delayed', 'start', S, 'f').stdout.decode().strip()
def w(off, n, tag):
    global model
    d = rnd.randbytes(n); r = run('write', S, 'f', '--offset', str(off), inp=d)
    print(tag, 'write', off, n, 'rc', r.returncode, r.stderr.decode()[-200:].strip())
    if r.returncode == 0:
        if len(model) < off + n: model.extend(bytearray(off + n - len(model)))
        model[off:off + n] = d
w(1000, 30000, 'window')
r = run('fail', S, '--oss', os.environ.get('OSS', '1')); print('fail rc', r.returncode, r.stderr.decode()[-300:].strip())
M = os.environ.get('MODE', 'a')
if M == 'a':   # online while the window is open, END after
    w(2000, 20000, 'window, OSS failed')
    r = run('online', S, '--oss', os.environ.get('OSS', '1')); print('online rc', r.returncode, r.stderr.decode()[-300:].strip())
    r = run('delayed', 'end', S, tok); print('end rc', r.returncode, r.stderr.decode()[-400:].strip())
elif M == 'b': # END (names the loss), rewrite the lost bytes outside a window, then online
    r = run('delayed', 'end', S, tok); print('end rc', r.returncode, r.stderr.decode()[-400:].strip())
    w(0, 40000, 'after END, OSS failed')
    r = run('online', S, '--oss', os.environ.get('OSS', '1')); print('online rc', r.returncode, r.stderr.decode()[-300:].strip())
elif M == 'c': # END, a NEW window rewriting part of the lost bytes (refused while failed?), online, END
    r = run('delayed', 'end', S, tok); print('end rc', r.returncode, r.stderr.decode()[-400:].strip())
    w(5000, 3000, 'after END, OSS failed, outside a window')
    tok = run('delayed', 'start', S, 'f').stdout.decode().strip(); print('start2', tok)
    r = run('online', S, '--oss', os.environ.get('OSS', '1')); print('online rc', r.returncode, r.stderr.decode()[-300:].strip())
    w(9000, 9000, 'window 2')
    r = run('delayed', 'end', S, tok); print('end2 rc', r.returncode, r.stderr.decode()[-400:].strip())
elif M == 'd': # online while window open without writes while failed; then rebuild path: fail again, rebuild --to
    r = run('online', S, '--oss', os.environ.get('OSS', '1')); print('online rc', r.returncode, r.stderr.decode()[-300:].strip())
    w(3000, 7000, 'window after online')
    r = run('fail', S, '--oss', os.environ.get('OSS', '1')); print('fail2 rc', r.returncode, r.stderr.decode()[-300:].strip())
    r = run('rebuild', S, '--oss', os.environ.get('OSS', '1')); print('rebuild rc', r.returncode, r.stderr.decode()[-300:].strip())
    r = run('delayed', 'end', S, tok); print('end rc', r.returncode, r.stderr.decode()[-400:].strip())
g = run('get', S, 'f'); print('get rc', g.returncode, g.stderr.decode()[-300:].strip())
if g.returncode == 0:
    bad = [i for i in range(len(model)) if i >= len(g.stdout) or g.stdout[i] != model[i]]
    print('WRONG BYTES' if bad else 'exact', len(bad), bad[:3])
else:
    for o in range(0, len(model), 4096):
        rr = run('read', S, 'f', '--offset', str(o), '--length', str(min(4096, len(model) - o)))
        if rr.returncode == 0 and rr.stdout != model[o:o + 4096]: print('WRONG BYTES in read at', o)
st = run('status', S, '--json'); import json; print('lost', json.loads(st.stdout)['lost_ranges'])
sc = run('scrub', S); print('scrub rc', sc.returncode, sc.stdout.decode()[-200:].strip())
PY
