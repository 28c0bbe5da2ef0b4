#!/usr/bin/env python3
# s18r: one rotten byte (random OSS object file, random offset) then one write of random range; nothing failed.
# Expected (docs/store.md F1): the write succeeds and heals; counts writes refused "checksum mismatch" (R18-1)
# and checks every byte is old or new either way. usage: EXARAID=... s18r-rot-write-fuzz.py DIR CODE UNIT TRIALS SEED
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']; D, code, unit, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(seed); c = code.split(':')
if c[0] == 'rs': args = ['--oss', str(int(c[1]) + int(c[2])), '--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): args = ['--oss', c[1]]
else: args = ['--oss', c[2], '--p', c[1]]
def run(a, inp=None): return subprocess.run([E, 'store'] + a, input=inp, capture_output=True)
refused = wrong = 0
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'
    assert run(['init', S, '--code', c[0], '--stripe-unit', str(unit)] + args).returncode == 0
    o1 = rnd.randrange(0, unit * 6); a = rnd.randbytes(rnd.randrange(1, unit * 4))
    assert run(['write', S, 'f', '--offset', str(o1)], a).returncode == 0
    old = bytearray(o1) + a
    files = sorted(glob.glob(S + '/oss-*/objects/*'))
    f = rnd.choice(files); off = rnd.randrange(os.path.getsize(f))
    with open(f, 'r+b') as h:
        h.seek(off); b = h.read(1); h.seek(off); h.write(bytes([b[0] ^ 0x5a]))
    o2 = rnd.randrange(0, unit * 6); b = rnd.randbytes(rnd.randrange(1, unit * 3))
    r = run(['write', S, 'f', '--offset', str(o2)], b)
    new = bytearray(old); new.extend(bytearray(max(0, o2 + len(b) - len(new)))); new[o2:o2 + len(b)] = b
    g = run(['get', S, 'f'])
    ok = g.returncode == 0 and (g.stdout == bytes(new) or (r.returncode != 0 and len(g.stdout) in (len(old), len(new)) and all(
        g.stdout[i] == new[i] or g.stdout[i] == (old[i] if i < len(old) else 0) for i in range(len(g.stdout)))))
    if not ok:
        keep = D + '-wrong-%d' % t; os.makedirs(keep, exist_ok=True)
        for nm, data in (('a', a), ('b', b), ('got', g.stdout)): open(keep + '/' + nm, 'wb').write(data)
        bad = [i for i in range(min(len(g.stdout), len(new))) if g.stdout[i] != new[i] and g.stdout[i] != (old[i] if i < len(old) else 0)]
        print('  neither old nor new:', len(bad), bad[:4], bad[-1:], 'kept in', keep)
    if not ok: wrong += 1; print('WRONG/GET', t, f[len(S):], off, o1, len(a), o2, len(b), r.returncode, g.returncode, g.stderr[-200:])
    if r.returncode != 0:
        refused += 1; print('refused', t, 'rot', f[len(S):], '@', off, 'first', o1, len(a), 'write', o2, len(b), r.stderr[-160:].decode(errors='replace').strip())
print(code, unit, 'trials', trials, 'refused', refused, 'wrong', wrong)
subprocess.run(['rm', '-rf', D])
