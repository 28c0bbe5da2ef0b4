#!/usr/bin/env python3
# s21r: two crashes in a row. A file is put, then an op is killed at a named point (write: a torn block
# in plan order; flush / end: an acknowledged WCL write or delayed window whose settle is cut; scrub:
# `scrub --repair` over a flipped block, cut), then optional damage (FLIPS bit flips on OSSs other than
# the torn ones, within the tolerance), then the NEXT open's recovery is killed at a recovery kill point
# (settle-*, journal-*), then optional damage again (FLIPS2), then `get` (the third open recovers).
# Every byte must be acknowledged (old or new for a cut write) with exit 0, or LOST named.
# usage: EXARAID=... s21r-double-kill.py DIR CODE UNIT WP OP TRIALS [SEED]
#   OP: write | flush | end | scrub.  Env: FLIPS (0), FLIPS2 (0), V=1 (print every trial).
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']
D, code, unit, wp, OP, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])
seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
F1, F2 = int(os.environ.get('FLIPS', '0')), int(os.environ.get('FLIPS2', '0'))
rnd = random.Random(seed)
c = code.split(':')
if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): n, extra = int(c[1]), []
else: n, extra = int(c[2]), ['--p', c[1]]
RPTS = ['settle-begun', 'settle-element', 'settle-stripe', 'settle-synced', 'settle-torn-block', 'journal-record',
        'journal-tail', 'journal-cut-write', 'extents-synced']
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode == 124 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, env, p.returncode, p.stderr[-500:]); sys.exit(1)
    return p.returncode, p.stdout, p.stderr
def flip(S, k, avoid):
    out = []
    files = [f for f in glob.glob(S + '/oss-*/objects/*') if os.path.getsize(f) > 0]
    used = set(avoid)
    for _ in range(k):
        cand = [f for f in files if f.split('/oss-')[1].split('/')[0] not in used]
        if not cand: break
        f = rnd.choice(cand); used.add(f.split('/oss-')[1].split('/')[0]); o = rnd.randrange(os.path.getsize(f))
        with open(f, 'r+b') as h:
            h.seek(o); b = h.read(1); h.seek(o); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
        out.append('%s@%d' % (f[len(S):], o))
    return out, used
bad = lost = k1 = k2 = 0
for t in range(trials):
    S = D; subprocess.run(['rm', '-rf', S])
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + extra)[0] == 0
    size = rnd.randrange(unit, unit * 14)
    old = os.urandom(size); assert run(['put', S, 'f'], old)[0] == 0
    off = rnd.randrange(0, size + unit * int(os.environ.get('FAR', '3'))); ln = rnd.randrange(1, unit * 5)  # FAR: sparse writes past EOF
    data = os.urandom(ln)
    new = bytearray(old); new.extend(b'\0' * max(0, off + ln - len(new))); new[off:off + ln] = data
    pre = []
    if OP == 'write':
        kill = {'EXARAID_KILL_AT': 'write-torn-block:%d' % rnd.randrange(1, 9), 'EXARAID_KILL_IN_PLAN_ORDER': '1'}
        w = run(['write', S, 'f', '--offset', str(off)], data, kill)
    elif OP == 'scrub':
        assert run(['write', S, 'f', '--offset', str(off)], data)[0] == 0
        old = bytes(new); pre, _ = flip(S, 1, [])
        kill = {'EXARAID_KILL_AT': '%s:%d' % (rnd.choice(['write-torn-block', 'journal-record']), rnd.randrange(1, 4))}
        w = run(['scrub', S, '--repair'], b'', kill)
    else:
        tok = run(['delayed', 'start', S, 'f'])[1].decode().strip() if OP == 'end' else None
        assert run(['write', S, 'f', '--offset', str(off)], data)[0] == 0
        old = bytes(new)
        kill = {'EXARAID_KILL_AT': '%s:%d' % (rnd.choice(['settle-torn-block', 'write-torn-block', 'settle-element', 'journal-record']), rnd.randrange(1, 8))}
        w = run(['flush', S] if OP == 'flush' else ['delayed', 'end', S, tok], b'', kill)
    if w[0] not in (137, -9):
        continue
    k1 += 1
    torn = set(l.split('/oss-')[1].split()[0].rstrip(',') for l in w[2].decode(errors='replace').split('\n') if '/oss-' in l)
    fl1, used = flip(S, F1, torn)
    k = '%s:%d' % (rnd.choice(RPTS), rnd.randrange(1, 5))
    r2 = run(['status', S], b'', {'EXARAID_KILL_AT': k})
    chained = r2[0] in (137, -9)
    k2 += chained
    fl2, _ = flip(S, F2, used) if chained else ([], None)
    g = run(['get', S, 'f'])
    desc = 'trial %d size %d write %d+%d kill1 %s torn %s pre %s flips1 %s kill2 %s%s flips2 %s' % (
        t, size, off, ln, kill['EXARAID_KILL_AT'], sorted(torn), pre, fl1, k, '' if chained else ' (not reached)', fl2)
    if g[0] == 0:
        got = g[1]
        if len(got) not in (len(old), len(new)):
            bad += 1; print('WRONG LENGTH', len(got), len(old), len(new), desc); continue
        wrong = [i for i in range(len(got)) if got[i] != (new[i] if i < len(new) else 0) and got[i] != (old[i] if i < len(old) else 0)]
        if wrong:
            bad += 1; print('WRONG BYTES', len(wrong), 'first', wrong[:4], 'got', got[wrong[0]], 'new', new[wrong[0]], desc)
        elif os.environ.get('V'): print('  ok', desc)
    elif b'lost' in g[2].lower():
        lost += 1; print('  lost', desc, g[2][-250:])
    else:
        bad += 1; print('GET FAILED', desc, g[2][-400:])
print('%s %s %s: %d trials, %d killed, %d second kills, %d lost named, %d PROBLEMS' % (code, wp, OP, trials, k1, k2, lost, bad))
subprocess.run(['rm', '-rf', D])
