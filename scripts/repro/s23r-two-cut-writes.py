#!/usr/bin/env python3
# s23r: two cut writes in a row, then rot. A file is put; write A is killed at a torn block (plan order);
# write B over an overlapping range (its open recovers A) is killed at a torn block too; then FLIPS bits are
# flipped on OSSs the second kill did not name as torn (ANY=1: any OSS); then `get` (the open recovers B).
# Every byte must be old, A's or B's (in their ranges), or the read refused naming LOST bytes.
# usage: EXARAID=... s23r-two-cut-writes.py DIR CODE UNIT WP TRIALS [FLIPS] [SEED]   (CODE raid6:6 | rs:4:3 | hdp:5:7)
# Env: STOP=1 (exit at the first wrong byte, KEEP holds its image before the flips), TEAR=1 (every OSS torn at once in B), V=1 (print lost trials), KEEP=DIR (keep each image before its flip).
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']
D, code, unit, wp, trials = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
nflips = int(sys.argv[6]) if len(sys.argv) > 6 else 1
seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
rnd = random.Random(seed)
drnd = random.Random(seed * 7919)  # the bytes: a seed replays a trial exactly
c = code.split(':')
if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): n, extra = int(c[1]), []
else: n, extra = int(c[2]), ['--p', c[1]]
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode == 124 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, p.returncode, p.stderr[:1500]); print('  at', STATE)
        if os.environ.get('KEEP'): print('  image before the flips kept in', os.environ['KEEP'])
        subprocess.run(['cp', '-a', args[1], args[1] + '.panic']); sys.exit(1)
    return p.returncode, p.stdout, p.stderr
def torn_of(err):
    return set(l.split('/oss-')[1].split()[0].rstrip(',').split('/')[0] for l in err.decode(errors='replace').split('\n') if '/oss-' in l)
bad = lost = killed = 0
STATE = ''
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + extra)[0] == 0
    size = rnd.randrange(unit, unit * 12)
    old = drnd.randbytes(size); assert run(['put', S, 'f'], old)[0] == 0
    cand = [bytearray(old)]
    ranges = []
    for w in range(2):
        base = ranges[0][0] if ranges else rnd.randrange(0, size)
        off = max(0, base + rnd.randrange(-unit * 2, unit * 2)) if ranges else base
        ln = rnd.randrange(1, unit * 5); data = drnd.randbytes(ln)
        kill = {'EXARAID_KILL_AT': 'write-torn-block:%d' % rnd.randrange(1, 8), 'EXARAID_KILL_IN_PLAN_ORDER': '1'}
        if w == 1 and os.environ.get('TEAR') == '1': kill['EXARAID_KILL_TEAR_EVERY_OSS'] = '1'
        r = run(['write', S, 'f', '--offset', str(off)], data, kill)
        ranges.append((off, ln, data, r[0], kill['EXARAID_KILL_AT']))
        if r[0] not in (137, -9) and r[0] != 0:
            print('  write refused', t, w, off, ln, kill, [(o, l, rc, k) for o, l, _, rc, k in ranges], r[2][-600:])
        last = r
    if last[0] not in (137, -9):
        continue
    killed += 1
    torn = torn_of(last[2])
    if os.environ.get('KEEP'):
        K = os.environ['KEEP']; subprocess.run(['rm', '-rf', K] + glob.glob(K + '.w*')); subprocess.run(['cp', '-a', S, K])
        open(K + '.old', 'wb').write(old)
        for j, (o, l, d, rc, k) in enumerate(ranges): open(K + '.w%d-%d' % (j, o), 'wb').write(d)
    files = [f for f in glob.glob(S + '/oss-*/objects/*') if os.path.getsize(f) > 0]
    if os.environ.get('ANY') != '1':
        files = [f for f in files if f.split('/oss-')[1].split('/')[0] not in torn]
    fl = []; used = set()
    for _ in range(nflips):
        cf = [f for f in files if f.split('/oss-')[1].split('/')[0] not in used]
        if not cf: break
        f = rnd.choice(cf); used.add(f.split('/oss-')[1].split('/')[0])
        o = rnd.randrange(os.path.getsize(f))
        with open(f, 'r+b') as h:
            h.seek(o); b = h.read(1); h.seek(o); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
        fl.append('%s@%d' % (f[len(S):], o))
    STATE = 'trial %d size %d writes %s flips %s' % (t, size, [(o, l, rc, k) for o, l, _, rc, k in ranges], fl)
    g = run(['get', S, 'f'])
    desc = 'trial %d size %d writes %s torn %s flips %s' % (t, size, [(o, l, rc, k) for o, l, _, rc, k in ranges], sorted(torn), fl)
    if g[0] == 0:
        got = g[1]
        def ok(i, b):
            vals = {old[i] if i < len(old) else 0}
            for o, l, d, rc, k in ranges:
                if o <= i < o + l: vals.add(d[i - o])
            return b in vals
        wrong = [i for i in range(len(got)) if not ok(i, got[i])]
        ends = {len(old)} | {max(len(old), o + l) for o, l, _, _, _ in ranges} | {max(len(old), ranges[0][0] + ranges[0][1], ranges[1][0] + ranges[1][1])}
        if len(got) not in ends:
            bad += 1; print('WRONG LENGTH', len(got), sorted(ends), desc)
        elif wrong:
            bad += 1; print('WRONG BYTES', len(wrong), 'first', wrong[:4], 'got', got[wrong[0]], desc)
            if os.environ.get('STOP') == '1': print('  stopped; image before the flips in', os.environ.get('KEEP')); sys.exit(1)
    elif b'lost' in g[2].lower():
        lost += 1
        if os.environ.get('V'): print('  lost', desc, g[2][-300:])
    else:
        bad += 1; print('GET FAILED', desc, g[2][-400:])
print('%s %s %d trials, %d killed, %d lost named, %d PROBLEMS' % (code, wp, trials, killed, lost, bad))
subprocess.run(['rm', '-rf', D])
