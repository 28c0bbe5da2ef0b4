#!/usr/bin/env python3
# s20r: damage that lands BETWEEN a crash and its recovery. A file is put, a write over it is killed
# at its n-th block write with the block torn (EXARAID_KILL_AT=write-torn-block:n, plan order; TEAR=1:
# every OSS caught in a torn block at once), then FLIPS random bits are flipped in object files (of
# OSSs other than the torn ones unless ANY=1) before the next command; then `get` (the open recovers):
# every byte must be old or new, or the read refused naming LOST bytes. Trials are independent.
# usage: EXARAID=... s20r-torn-flip.py DIR CODE UNIT WP TRIALS [FLIPS] [SEED]
import os, random, subprocess, sys, glob, json
E = os.environ['EXARAID']
D, code, unit, wp, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
nflips = int(sys.argv[6]) if len(sys.argv) > 6 else 1
seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
rnd = random.Random(seed)
c = code.split(':')
if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): n, extra = int(c[1]), []
else: n, extra = int(c[2]), ['--p', c[1]]
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode == 124 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, p.returncode, p.stderr[-500:]); sys.exit(1)
    return p.returncode, p.stdout, p.stderr
bad = lost = killed = 0
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D
    r = run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + extra)
    assert r[0] == 0, r
    size = rnd.randrange(unit, unit * 16)
    old = os.urandom(size); assert run(['put', S, 'f'], old)[0] == 0
    tok = None
    if wp == 'delayed' and os.environ.get('OP', 'write') == 'write' and rnd.random() < 0.5:
        tok = run(['delayed', 'start', S, 'f'])[1].decode().strip()
    off = rnd.randrange(0, size); ln = rnd.randrange(1, unit * 6)
    data = os.urandom(ln)
    new = bytearray(old); new.extend(b'\0' * max(0, off + ln - len(new))); new[off:off + ln] = data
    kill = {'EXARAID_KILL_AT': 'write-torn-block:%d' % rnd.randrange(1, 8), 'EXARAID_KILL_IN_PLAN_ORDER': '1'}
    if os.environ.get('TEAR') == '1': kill['EXARAID_KILL_TEAR_EVERY_OSS'] = '1'
    OP = os.environ.get('OP', 'write')
    if os.environ.get('PREFAIL') == '1':  # the write runs degraded: one OSS failed before it
        run(['fail', S, '--oss', str(rnd.randrange(n))])
    if OP == 'write':
        w = run(['write', S, 'f', '--offset', str(off)], data, kill)
    elif OP in ('rebuild', 'online'):
        # an OSS failed, a degraded write acknowledged, then its rebuild / online cut; damage; rerun
        x = rnd.randrange(n); run(['fail', S, '--oss', str(x)])
        assert run(['write', S, 'f', '--offset', str(off)], data)[0] == 0
        old = bytes(new)
        pts = {'rebuild': ['rebuild-element', 'rebuild-begun', 'settle-element', 'journal-record'],
               'online': ['online-stripe', 'online-back', 'settle-element', 'journal-record']}[OP]
        kill['EXARAID_KILL_AT'] = '%s:%d' % (rnd.choice(pts), rnd.randrange(1, 5))
        kill.pop('EXARAID_KILL_IN_PLAN_ORDER', None)
        w = run([OP, S, '--oss', str(x)], b'', kill)
        if w[0] in (137, -9): w = (137, b'', ('/oss-%d\n' % x).encode() + w[2])
    else:
        # OP=flush (wcl) / end (delayed): the write is acknowledged, the settle or END that moves it is cut
        if OP == 'end' and not tok: tok = run(['delayed', 'start', S, 'f'])[1].decode().strip()
        assert run(['write', S, 'f', '--offset', str(off)], data)[0] == 0
        old = bytes(new)  # acknowledged: only the new bytes are right now
        pt = rnd.choice(['settle-torn-block', 'write-torn-block'])
        kill['EXARAID_KILL_AT'] = '%s:%d' % (pt, rnd.randrange(1, 8))
        w = run(['flush', S] if OP == 'flush' else ['delayed', 'end', S, tok], b'', kill)
    if w[0] not in (137, -9):
        continue
    killed += 1
    torn = set(l.split('/oss-')[1].split()[0].rstrip(',') for l in w[2].decode(errors='replace').split('\n') if '/oss-' in l)
    files = [f for f in glob.glob(S + '/oss-*/objects/*') if os.path.getsize(f) > 0]
    if os.environ.get('HOMEONLY') == '1':  # no flip in a cache zone (a window's only copy is lost by design)
        files = [f for f in files if not f.endswith('.cache')]
    if os.environ.get('SAME') == '1':  # the rot on the torn OSS itself: one column damaged
        files = [f for f in files if f.split('/oss-')[1].split('/')[0] in torn]
    elif os.environ.get('ANY') != '1':
        files = [f for f in files if f.split('/oss-')[1].split('/')[0] not in torn]
    fl = []
    oss_used = set()
    for _ in range(nflips):
        cand = [f for f in files if f.split('/oss-')[1].split('/')[0] not in oss_used]
        if not cand: break
        f = rnd.choice(cand); oss_used.add(f.split('/oss-')[1].split('/')[0])
        o = rnd.randrange(os.path.getsize(f))
        with open(f, 'r+b') as h:
            h.seek(o); b = h.read(1); h.seek(o); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
        fl.append('%s@%d' % (f[len(S):], o))
    if os.environ.get('DEAD') == '1':
        # the disk of another column dies with the crash: failed on record before the recovery
        x = rnd.choice([o for o in range(n) if str(o) not in torn]); fl.append('fail %d' % x)
        if os.environ.get('AWAYDEAD') == '1': os.rename(S + '/oss-%d' % x, S + '/oss-%d.x' % x)
        fr = run(['fail', S, '--oss', str(x)])
        if fr[0] != 0: print('  fail refused', fr[2][-200:])
    if OP in ('rebuild', 'online'):
        rr = run([OP, S, '--oss', str(x)])
        if rr[0] != 0: print('  rerun', OP, rr[0], rr[2][-300:])
    g = run(['get', S, 'f'])
    desc = 'trial %d size %d write %d+%d kill %s torn %s flips %s' % (t, size, off, ln, kill, sorted(torn), fl)
    if g[0] == 0:
        got = g[1]
        if len(got) not in (len(old), len(new)):
            bad += 1; print('WRONG LENGTH', len(got), len(old), len(new), desc); continue
        # past the old end an interrupted extending write may read zeros where its pieces did not land
        wrong = [i for i in range(len(got)) if got[i] != (new[i] if i < len(new) else 0) and got[i] != (old[i] if i < len(old) else 0)]
        if wrong:
            bad += 1; print('WRONG BYTES', len(wrong), 'first', wrong[:4], 'got', got[wrong[0]], 'old', old[wrong[0]] if wrong[0] < len(old) else None, 'new', new[wrong[0]], desc)
    elif b'lost' in g[2].lower():
        lost += 1
        if os.environ.get('V'): print('  lost', desc, g[2][-300:])
    else:
        bad += 1; print('GET FAILED', desc, g[2][-400:])
print('%s %s %d trials, %d killed, %d lost named, %d PROBLEMS' % (code, wp, trials, killed, lost, bad))
subprocess.run(['rm', '-rf', D])
