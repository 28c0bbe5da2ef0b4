#!/usr/bin/env python3
# s19r: R rotten bytes (R <= the code's tolerance), each on a different OSS, in the same slot of the same
# zone kind (so usually the same stripe), then one operation: MODE=rmw (a write), wcl (a write + flush),
# delayed (start, window write, end), scrub (scrub --repair), read (get only). Nothing failed.
# Expected: the op succeeds (rot within the tolerance is healed, docs/store.md F1) and every byte reads
# old-or-new (new when acknowledged); scrub --repair then leaves the store clean and exact.
# FAIL=F: F OSSs (not the rotten ones) failed before the op (R + F <= tolerance), rebuilt after.
# usage: EXARAID=... s19r-rotn-fuzz.py DIR CODE UNIT TRIALS SEED   (CODE raid6:N | rs:K:M | hdp:P:N ...)
import os, random, subprocess, sys, glob, re
E = os.environ['EXARAID']; D, code, unit, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
MODE = os.environ.get('MODE', 'rmw'); R = int(os.environ.get('ROTS', '2')); ZONE = os.environ.get('ZONE', '')
rnd = random.Random(seed); c = code.split(':')
if c[0] == 'rs': args, tol = ['--oss', str(int(c[1]) + int(c[2])), '--k', c[1], '--m', c[2]], int(c[2])
elif c[0] in ('raid5', 'raid6'): args, tol = ['--oss', c[1]], 1 if c[0] == 'raid5' else 2
else: args, tol = ['--oss', c[2], '--p', c[1]], 2
FAIL = int(os.environ.get('FAIL', '0')); assert R + FAIL <= tol
wp = {'rmw': 'rmw', 'wcl': 'wcl', 'wcl2': 'wcl', 'delayed': 'delayed'}.get(MODE, os.environ.get('WP', 'rmw'))
def run(a, inp=None):
    p = subprocess.run(['timeout', '60', E, 'store'] + a, input=inp, capture_output=True)
    if p.returncode in (124,) or p.returncode >= 100 or b'panicked' in p.stderr: print('PROBLEM hang/panic', a, p.returncode, p.stderr[-500:])
    return p
slot = unit + unit // 4096 * 4
stats = {'refused': 0, 'wrong': 0, 'notclean': 0, 'inexact': 0}
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'
    assert run(['init', S, '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + args).returncode == 0
    o1 = rnd.randrange(0, unit * 8); a = rnd.randbytes(rnd.randrange(1, unit * 8))
    assert run(['write', S, 'f', '--offset', str(o1)], a).returncode == 0
    if wp != 'rmw': run(['flush', S])
    old = bytearray(o1) + a
    if MODE == 'wcl2':  # a second write left in the cache zone (not flushed): the rots may hit live cache elements
        o2 = rnd.randrange(0, unit * 8); b = rnd.randbytes(rnd.randrange(1, unit * 6))
        assert run(['write', S, 'f', '--offset', str(o2)], b).returncode == 0
        old.extend(bytearray(max(0, o2 + len(b) - len(old)))); old[o2:o2 + len(b)] = b
    files = sorted(glob.glob(S + '/oss-*/objects/*'))
    kinds = sorted(set(os.path.basename(f) for f in files if os.path.getsize(f) > 0))
    kind = ZONE if ZONE in kinds else rnd.choice(kinds)
    cand = [f for f in files if os.path.basename(f) == kind and os.path.getsize(f) > 0]
    nslots = min(os.path.getsize(f) for f in cand) // slot
    if nslots == 0: continue
    s = rnd.randrange(nslots); rots = []
    picked = rnd.sample(cand, min(R, len(cand)))
    rotten_oss = set(int(f.split('/oss-')[1].split('/')[0]) for f in picked)
    nosss = len(glob.glob(S + '/oss-*'))
    failed = rnd.sample([o for o in range(nosss) if o not in rotten_oss], FAIL)
    for o in failed: assert run(['fail', S, '--oss', str(o)]).returncode == 0
    for f in picked:
        off = s * slot + rnd.randrange(unit)
        with open(f, 'r+b') as h:
            h.seek(off); b = h.read(1); h.seek(off); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
        rots.append('%s@%d' % (f[len(S):], off))
    new = bytearray(old); r = None
    if MODE in ('rmw', 'wcl', 'delayed'):
        o2 = rnd.randrange(0, unit * 8); b = rnd.randbytes(rnd.randrange(1, unit * 6))
        if MODE == 'delayed':
            st = run(['delayed', 'start', S, 'f']); tok = st.stdout.decode().strip()
        r = run(['write', S, 'f', '--offset', str(o2)], b)
        if MODE == 'wcl' and r.returncode == 0: r = run(['flush', S])
        if MODE == 'delayed' and r.returncode == 0: r = run(['delayed', 'end', S, tok])
        new.extend(bytearray(max(0, o2 + len(b) - len(new)))); new[o2:o2 + len(b)] = b
        what = 'write %d+%d' % (o2, len(b))
    elif MODE == 'scrub':
        r = run(['scrub', S, '--repair']); what = 'scrub --repair'
    elif MODE == 'wcl2':
        r = run(['flush', S]); what = 'flush'
    else: what = 'get'
    g = run(['get', S, 'f'])
    acked = r is None or r.returncode == 0
    if g.returncode == 0:
        if acked: ok = g.stdout == bytes(new)
        else: ok = len(g.stdout) in (len(old), len(new)) and all(
            g.stdout[i] == new[i] or g.stdout[i] == (old[i] if i < len(old) else 0) for i in range(len(g.stdout)))
    else: ok = None
    tag = '%s rots %s failed %s %s' % (t, rots, failed, what)
    if r is not None and r.returncode != 0:
        stats['refused'] += 1; print('REFUSED', tag, r.stderr[-int(os.environ.get('ERRLEN', '300')):].decode(errors='replace').strip())
    if ok is False:
        stats['wrong'] += 1
        ref = new if acked else old
        bad = [i for i in range(min(len(g.stdout), len(ref))) if g.stdout[i] != new[i] and g.stdout[i] != (old[i] if i < len(old) else 0)]
        print('WRONG BYTES', tag, 'acked', acked, 'len', len(g.stdout), len(new), 'neither', len(bad), bad[:4])
    if ok is None: print('GET FAILED', tag, g.stderr[-300:].decode(errors='replace').strip())
    if os.environ.get('STOPAT') == str(t): open(D + '/new', 'wb').write(new); open(D + '/old', 'wb').write(old); print('stopped, store kept in', S, 'get == new', g.stdout == bytes(new), 'old', len(old), 'new', len(new)); sys.exit(0)
    for o in failed: run(['rebuild', S, '--oss', str(o)])
    sc = run(['scrub', S, '--repair']); sc2 = run(['scrub', S])
    if sc2.returncode != 0 or not re.search(rb'corrupt elements: 0\b', sc2.stdout):
        stats['notclean'] += 1; print('NOT CLEAN after scrub --repair', tag, sc.returncode, sc.stdout[-300:], sc2.stdout[-200:])
    g2 = run(['get', S, 'f'])
    if acked and g2.stdout != bytes(new): stats['inexact'] += 1; print('INEXACT after repair', tag, g2.returncode, g2.stderr[-200:])
print(code, unit, MODE, 'R', R, 'trials', trials, stats)
subprocess.run(['rm', '-rf', D])
