#!/usr/bin/env python3
# s22r: `scrub --repair` cut by a kill while it mends rot, then more rot before the next open.
# Files put (sizes not a multiple of a stripe), F1 bits flipped on distinct OSSs, `scrub --repair` killed at
# a named point (write-torn-block:n in plan order, optionally every OSS torn; or journal-record:n), then F2
# more bits flipped on OSSs not flipped before (F1 + F2 <= the code's tolerance: the torn repair lands on a
# rotten OSS), then `get` of every file (the open recovers), then `scrub` (must be clean after --repair).
# Every acknowledged byte must read exact with exit 0 (nothing was in flight but the repair), or be named LOST
# (flagged: within the tolerance). usage: EXARAID=... s22r-scrub-kill.py DIR CODE UNIT WP TRIALS [SEED]
#   env F1 (1), F2 (1), NFILES (3), V=1
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']
D, code, unit, wp, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
F1, F2, NF = int(os.environ.get('F1', '1')), int(os.environ.get('F2', '1')), int(os.environ.get('NFILES', '3'))
rnd = random.Random(seed)
c = code.split(':')
if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): n, extra = int(c[1]), []
else: n, extra = int(c[2]), ['--p', c[1]]
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, p.returncode, p.stderr[-500:], flush=True); sys.exit(1)
    return p.returncode, p.stdout, p.stderr
def flip(S, exclude, k):
    used = set(); out = []
    files = [f for f in glob.glob(S + '/oss-*/objects/*') if os.path.getsize(f) > 0]
    for _ in range(k):
        cand = [f for f in files if f.split('/oss-')[1].split('/')[0] not in exclude | used]
        if not cand: break
        f = rnd.choice(cand); used.add(f.split('/oss-')[1].split('/')[0])
        o = rnd.randrange(os.path.getsize(f))
        with open(f, 'r+b') as h:
            h.seek(o); b = h.read(1); h.seek(o); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
        out.append('%s@%d' % (f[len(S):], o))
    return used, out
bad = lost = killed = 0
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + extra)[0] == 0
    exp = {}
    for i in range(NF):
        b = os.urandom(rnd.randrange(1, unit * 14)); exp['f%d' % i] = b
        assert run(['put', S, 'f%d' % i], b)[0] == 0
    if wp == 'wcl' and rnd.random() < 0.5:  # some bytes cached
        nm = rnd.choice(sorted(exp)); off = rnd.randrange(len(exp[nm])); w = os.urandom(rnd.randrange(1, unit * 3))
        assert run(['write', S, nm, '--offset', str(off)], w)[0] == 0
        x = bytearray(exp[nm]); x.extend(b'\0' * max(0, off + len(w) - len(x))); x[off:off + len(w)] = w; exp[nm] = bytes(x)
    used1, fl1 = flip(S, set(), F1)
    if rnd.random() < 0.7:
        kill = {'EXARAID_KILL_AT': 'write-torn-block:%d' % rnd.randrange(1, 4), 'EXARAID_KILL_IN_PLAN_ORDER': '1'}
        if rnd.random() < 0.3: kill['EXARAID_KILL_TEAR_EVERY_OSS'] = '1'
    else:
        kill = {'EXARAID_KILL_AT': 'journal-record:%d' % rnd.randrange(1, 4)}
    w = run(['scrub', S, '--repair'], b'', kill)
    if w[0] not in (137, -9): continue
    killed += 1
    used2, fl2 = flip(S, used1, F2)
    desc = 'trial %d sizes %s kill %s flips %s then %s' % (t, [len(v) for v in exp.values()], kill, fl1, fl2)
    for nm, v in sorted(exp.items()):
        g = run(['get', S, nm])
        if g[0] == 0:
            if g[1] != v:
                d = [i for i in range(min(len(v), len(g[1]))) if v[i] != g[1][i]]
                bad += 1; print('WRONG BYTES', nm, len(g[1]), len(v), 'differ', len(d), d[:4], desc, g[2][-200:], flush=True)
        elif b'lost' in g[2].lower():
            lost += 1; print('LOST WITHIN TOLERANCE', nm, desc, g[2][-300:], flush=True)
        else:
            bad += 1; print('GET FAILED', nm, desc, g[2][-300:], flush=True)
    r = run(['scrub', S, '--repair']); r2 = run(['scrub', S])
    if r2[0] != 0 or b'corrupt elements: 0,' not in r2[1] or b'parity mismatches: 0' not in r2[1]:
        print('NOT CLEAN after repair', desc, r[0], r[1][-300:], r2[0], r2[1][-300:], r2[2][-200:], flush=True)
    if os.environ.get('V'): print('  ok', desc, flush=True)
print('%s %s %d trials, %d killed, %d lost named, %d PROBLEMS' % (code, wp, trials, killed, lost, bad))
subprocess.run(['rm', '-rf', D])
