#!/usr/bin/env python3
# s23r R23-4 sweep: WCL. put; optional acknowledged write A (ACK=1); write B killed at write-torn-block:n (plan
# order); then ONE bit flipped in a cache-zone byte that B changed (B's landed bytes) on an OSS B's kill did not
# name as torn; get: every byte old/A/B (A acknowledged) or LOST named.
# s24r: BESIDE=1 flips a byte B did NOT change inside a 4 KiB cache block B changed (rot beside the cut write's part).
# Env: SAME=1 (flip on the torn OSS itself: one column damaged), WP (wcl; rmw, delayed), ZONES (zone files to flip in: '*.cache'; '0.*' = home zones).
# usage: EXARAID=... s23r-wcl-cache-rot.py DIR CODE UNIT TRIALS SEED   (CODE raid6:N | rs:K:M | hdp:P:N)
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']
D, code, unit, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
prnd = random.Random(seed * 7); rnd = random.Random(seed); drnd = random.Random(seed * 31)
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
    return {f: open(f, 'rb').read() for f in glob.glob(S + '/oss-*/objects/' + os.environ.get('ZONES', '*.cache'))}
bad = lost = killed = 0
for t in range(trials):
    S = D; subprocess.run(['rm', '-rf', S])
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', os.environ.get('WP', 'wcl')] + extra).returncode == 0
    size = rnd.randrange(unit, unit * 10); old = drnd.randbytes(size)
    assert run(['put', S, 'f'], old).returncode == 0
    ws = []
    if os.environ.get('ACK') == '1':
        o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 3))
        assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d))
    before = caches(S)
    o = max(0, (ws[0][0] if ws else rnd.randrange(size)) - rnd.randrange(unit * 2)); d = drnd.randbytes(rnd.randrange(1, unit * 5))
    k = 'write-torn-block:%d' % rnd.randrange(1, 9)
    if os.environ.get('POINTS'):  # s26a: e.g. POINTS=write-page-cut,write-page-cut-last (drawn per trial)
        k = '%s:%s' % (prnd.choice(os.environ['POINTS'].split(',')), k.split(':')[1])
    w = run(['write', S, 'f', '--offset', str(o)], d, {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    if w.returncode != -9: continue
    killed += 1; ws.append((o, d))
    torn = set(l.split('/oss-')[1].split()[0].split('/')[0] for l in w.stderr.decode(errors='replace').split('\n') if '/oss-' in l)
    after = caches(S); cand = []
    for f, a in after.items():
        if (f.split('/oss-')[1].split('/')[0] in torn) != (os.environ.get('SAME') == '1'): continue
        b = before.get(f, b'')
        ch = [i for i in range(len(a)) if i >= len(b) or a[i] != b[i]]
        if os.environ.get('BESIDE') == '1':
            sb = unit + unit // 4096 * 4  # one slot on disk: the element, then a crc per 4 KiB block
            blocks = set((i // sb) * sb + (i % sb) // 4096 * 4096 for i in ch if i % sb < unit); chs = set(ch)
            ch = [i for bl in sorted(blocks) for i in range(bl, min(len(a), bl + 4096)) if i not in chs and i < len(b)]
        cand += [(f, i) for i in ch]
    if not cand: continue
    f, i = rnd.choice(cand); m = 1 << rnd.randrange(8)
    if os.environ.get('ONLY') == str(t):  # ONLY=T KEEP=DIR: keep trial T's image before its flip, the bytes, and stop after it
        K = os.environ['KEEP']; subprocess.run(['rm', '-rf', K]); subprocess.run(['cp', '-a', S, K])
        open(K + '.old', 'wb').write(old)
        for j, (o, d) in enumerate(ws): open(K + '.w%d-%d' % (j, o), 'wb').write(d)
        print('kept', K, 'flip', f[len(S):], i, m)
    with open(f, 'r+b') as h:
        h.seek(i); x = h.read(1); h.seek(i); h.write(bytes([x[0] ^ m]))
    g = run(['get', S, 'f'])
    desc = 'trial %d size %d writes %s kill %s torn %s flip %s@%d^%d' % (t, size, [(a, len(b)) for a, b in ws], k, sorted(torn), f[len(S):], i, m)
    if g.returncode == 0:
        got = g.stdout
        def ok(x, v):
            vals = {old[x] if x < len(old) else 0}
            if len(ws) == 2 and ws[0][0] <= x < ws[0][0] + len(ws[0][1]): vals = {ws[0][1][x - ws[0][0]]}
            lo, ld = ws[-1]
            if lo <= x < lo + len(ld): vals.add(ld[x - lo])
            return v in vals
        wrong = [x for x in range(len(got)) if not ok(x, got[x])]
        if wrong: bad += 1; print('WRONG BYTES', len(wrong), wrong[:3], desc)
    elif b'lost' in g.stderr.lower(): lost += 1
    else: bad += 1; print('GET FAILED', desc, g.stderr[-300:])
    if os.environ.get('ONLY') == str(t): break
print(code, unit, os.environ.get('WP', 'wcl'), os.environ.get('ZONES', '*.cache'), 'ACK=%s' % os.environ.get('ACK', '0'), trials, 'trials', killed, 'killed', lost, 'lost named', bad, 'PROBLEMS')
subprocess.run(['rm', '-rf', D])
