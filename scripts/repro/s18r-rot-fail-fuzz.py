#!/usr/bin/env python3
# s18r: one rotten byte (random OSS file) + one OSS failed (another one): within a 2-parity code's
# tolerance. A degraded write, `rebuild` of the failed OSS, then get and scrub. Expected: all rc 0,
# every byte exact, scrub clean after --repair. usage: EXARAID=... s18r-rot-fail-fuzz.py DIR CODE UNIT TRIALS SEED [WP]
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']; D, code, unit, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
wp = sys.argv[6] if len(sys.argv) > 6 else 'rmw'
rnd = random.Random(seed); c = code.split(':')
if c[0] == 'rs': n = int(c[1]) + int(c[2]); args = ['--oss', str(n), '--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): n = int(c[1]); args = ['--oss', c[1]]
else: n = int(c[2]); args = ['--oss', c[2], '--p', c[1]]
def run(a, inp=None): return subprocess.run([E, 'store'] + a, input=inp, capture_output=True)
tally = {}
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'
    run(['init', S, '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + args)
    o1 = rnd.randrange(0, unit * 6); a = rnd.randbytes(rnd.randrange(1, unit * 6))
    run(['write', S, 'f', '--offset', str(o1)], a); old = bytearray(o1) + a
    if wp == 'wcl': run(['flush', S])
    files = sorted(f for f in glob.glob(S + '/oss-*/objects/*') if not f.endswith('.cache'))
    f = rnd.choice(files); off = rnd.randrange(os.path.getsize(f)); rot_oss = int(f[len(S) + 5:].split('/')[0])
    with open(f, 'r+b') as h: h.seek(off); x = h.read(1); h.seek(off); h.write(bytes([x[0] ^ 0x5a]))
    fo = rnd.choice([o for o in range(n) if o != rot_oss]); run(['fail', S, '--oss', str(fo)])
    o2 = rnd.randrange(0, unit * 6); b = rnd.randbytes(rnd.randrange(1, unit * 3))
    w = run(['write', S, 'f', '--offset', str(o2)], b)
    new = bytearray(old); new.extend(bytearray(max(0, o2 + len(b) - len(new)))); new[o2:o2 + len(b)] = b
    r = run(['rebuild', S, '--oss', str(fo)]); g = run(['get', S, 'f'])
    gs = g.stdout
    if w.returncode == 0: verdict = 'exact' if gs == bytes(new) else 'WRONG'
    else:  # a refused write: each byte old or new (as a killed one)
        bad = [i for i in range(len(gs)) if not (i < len(new) and gs[i] == new[i]) and gs[i] != (old[i] if i < len(old) else 0)]
        verdict = 'old/new' if not bad else 'WRONG (%d bytes neither old nor new, first %d)' % (len(bad), bad[0])
    k = 'write rc %d, rebuild rc %d, get %s' % (w.returncode, r.returncode, ('rc %d' % g.returncode) if g.returncode else verdict)
    tally[k] = tally.get(k, 0) + 1
    if k != 'write rc 0, rebuild rc 0, get exact':
        print(k, '| rot', f[len(S):], off, 'failed', fo, 'first', o1, len(a), 'write', o2, len(b), '|', (w.stderr or r.stderr or g.stderr)[:200].decode(errors='replace'))
print(code, unit, wp, tally)
subprocess.run(['rm', '-rf', D])
