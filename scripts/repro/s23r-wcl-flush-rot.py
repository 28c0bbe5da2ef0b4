#!/usr/bin/env python3
# s23r: WCL. put; write A acknowledged (cached); `flush` (the settle moving A home) killed at a named point;
# one bit flipped in a cache-zone byte A wrote (its acknowledged bytes' cache copy), on an OSS the kill did
# not name as torn; get: every byte the put's or A's, exact (all acknowledged), or LOST named.
# usage: EXARAID=... s23r-wcl-flush-rot.py DIR CODE UNIT TRIALS SEED   (CODE raid6:N | rs:K:M | hdp:P:N)
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']
D, code, unit, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(seed); drnd = random.Random(seed * 31)
c = code.split(':')
if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): n, extra = int(c[1]), []
else: n, extra = int(c[2]), ['--p', c[1]]
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr: print('PROBLEM hang/panic', args, p.stderr[:600])
    return p
def caches(S):
    return {f: open(f, 'rb').read() for f in glob.glob(S + '/oss-*/objects/*.cache')}
bad = lost = killed = 0
for t in range(trials):
    S = D; subprocess.run(['rm', '-rf', S])
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', 'wcl'] + extra).returncode == 0
    size = rnd.randrange(unit, unit * 10); old = drnd.randbytes(size)
    assert run(['put', S, 'f'], old).returncode == 0
    before = caches(S)
    o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 5))
    assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0
    new = bytearray(old); new.extend(b'\0' * max(0, o + len(d) - len(new))); new[o:o + len(d)] = d
    after = caches(S)
    k = '%s:%d' % (rnd.choice(['settle-torn-block', 'settle-element', 'settle-stripe', 'settle-synced', 'journal-record']), rnd.randrange(1, 6))
    w = run(['flush', S], b'', {'EXARAID_KILL_AT': k})
    if w.returncode != -9: continue
    killed += 1
    torn = set(l.split('/oss-')[1].split()[0].split('/')[0] for l in w.stderr.decode(errors='replace').split('\n') if '/oss-' in l)
    cand = []
    for f, a in after.items():
        if f.split('/oss-')[1].split('/')[0] in torn or not os.path.exists(f): continue
        b = before.get(f, b'')
        cand += [(f, i) for i in range(len(a)) if i >= len(b) or a[i] != b[i]]
    if not cand: continue
    f, i = rnd.choice(cand); m = 1 << rnd.randrange(8)
    with open(f, 'r+b') as h:
        h.seek(i); x = h.read(1); h.seek(i); h.write(bytes([x[0] ^ m]))
    g = run(['get', S, 'f'])
    desc = 'trial %d size %d write %d+%d kill %s torn %s flip %s@%d^%d' % (t, size, o, len(d), k, sorted(torn), f[len(S):], i, m)
    if g.returncode == 0:
        got = g.stdout
        wrong = [x for x in range(max(len(got), len(new))) if x >= len(got) or x >= len(new) or got[x] != new[x]]
        if wrong: bad += 1; print('WRONG BYTES', len(wrong), wrong[:3], desc)
    elif b'lost' in g.stderr.lower():
        lost += 1; print('  lost named', desc, g.stderr[-200:])
    else: bad += 1; print('GET FAILED', desc, g.stderr[-300:])
print(code, unit, trials, 'trials', killed, 'killed', lost, 'lost named', bad, 'PROBLEMS')
subprocess.run(['rm', '-rf', D])
