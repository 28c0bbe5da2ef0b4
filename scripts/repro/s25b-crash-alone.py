#!/usr/bin/env python3
# s25b (docs/results/s25b-raid5-home-rot.md): a crash alone (no rot) on raid5 / rs k+1 rmw or delayed: put, optional acknowledged write A, write B killed at
# write-torn-block:n (plan order); get must read every byte (old/A or B), never LOST, never wrong.
# usage: EXARAID=... WP=rmw s25b-crash-alone.py DIR CODE UNIT TRIALS SEED
import os, random, subprocess, sys
E = os.environ['EXARAID']
D, code, unit, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
prnd = random.Random(seed * 7); rnd = random.Random(seed); drnd = random.Random(seed * 31)
c = code.split(':')
if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
else: n, extra = int(c[1]), []
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    return subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
bad = lost = killed = 0
for t in range(trials):
    S = D; subprocess.run(['rm', '-rf', S])
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', os.environ.get('WP', 'rmw')] + extra).returncode == 0
    size = rnd.randrange(unit, unit * 10); old = drnd.randbytes(size)
    assert run(['put', S, 'f'], old).returncode == 0
    ws = []
    if rnd.random() < 0.5:
        o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 3))
        assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d))
    o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 5))
    k = 'write-torn-block:%d' % rnd.randrange(1, 9)
    if os.environ.get('POINTS'):  # s26a: e.g. POINTS=write-page-cut,write-page-cut-last (drawn per trial)
        k = '%s:%s' % (prnd.choice(os.environ['POINTS'].split(',')), k.split(':')[1])
    w = run(['write', S, 'f', '--offset', str(o)], d, {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    if w.returncode != -9: continue
    killed += 1; ws.append((o, d))
    g = run(['get', S, 'f'])
    desc = 'trial %d size %d writes %s kill %s' % (t, size, [(a, len(b)) for a, b in ws], k)
    if g.returncode != 0:
        if b'lost' in g.stderr.lower(): lost += 1; print('LOST (crash alone)', desc, g.stderr[-200:])
        else: bad += 1; print('GET FAILED', desc, g.stderr[-300:])
        continue
    got = g.stdout
    def ok(x, v):
        vals = {old[x] if x < len(old) else 0}
        if len(ws) == 2 and ws[0][0] <= x < ws[0][0] + len(ws[0][1]): vals = {ws[0][1][x - ws[0][0]]}
        lo, ld = ws[-1]
        if lo <= x < lo + len(ld): vals.add(ld[x - lo])
        return v in vals
    wrong = [x for x in range(len(got)) if not ok(x, got[x])]
    if wrong: bad += 1; print('WRONG BYTES', len(wrong), wrong[:3], desc)
print(code, unit, os.environ.get('WP', 'rmw'), trials, 'trials', killed, 'killed', lost, 'LOST', bad, 'PROBLEMS')
subprocess.run(['rm', '-rf', D])
