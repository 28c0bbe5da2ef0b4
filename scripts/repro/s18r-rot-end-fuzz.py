#!/usr/bin/env python3
# s18r: one rotten home byte (data or parity), then a delayed window write and END; nothing failed.
# Expected: END rc 0 and every byte exact (one rot is within every code's tolerance). Counts END refusals and
# checks the bytes. MODE=wcl: a WCL store, the first write flushed home, the second cached then `flush`
# (the flush's rc counted as END's). MODE=dflush: delayed, `flush` with the window open (its rc counted), then END.
# usage: EXARAID=... s18r-rot-end-fuzz.py DIR CODE UNIT TRIALS SEED
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']; D, code, unit, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(seed); c = code.split(':')
if c[0] == 'rs': args = ['--oss', str(int(c[1]) + int(c[2])), '--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): args = ['--oss', c[1]]
else: args = ['--oss', c[2], '--p', c[1]]
def run(a, inp=None): return subprocess.run([E, 'store'] + a, input=inp, capture_output=True)
tally = {}
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'
    wcl = os.environ.get('MODE') == 'wcl'
    run(['init', S, '--code', c[0], '--stripe-unit', str(unit), '--write-path', 'wcl' if wcl else 'delayed'] + args)
    o1 = rnd.randrange(0, unit * 6); a = rnd.randbytes(rnd.randrange(1, unit * 4))
    run(['write', S, 'f', '--offset', str(o1)], a); old = bytearray(o1) + a
    if wcl: run(['flush', S])
    files = sorted(f for f in glob.glob(S + '/oss-*/objects/*') if not f.endswith('.cache'))
    f = rnd.choice(files); off = rnd.randrange(os.path.getsize(f))
    with open(f, 'r+b') as h: h.seek(off); x = h.read(1); h.seek(off); h.write(bytes([x[0] ^ 0x5a]))
    tok = None if wcl else run(['delayed', 'start', S, 'f']).stdout.decode().strip()
    o2 = rnd.randrange(0, unit * 6); b = rnd.randbytes(rnd.randrange(1, unit * 3))
    w = run(['write', S, 'f', '--offset', str(o2)], b)
    new = bytearray(old); new.extend(bytearray(max(0, o2 + len(b) - len(new)))); new[o2:o2 + len(b)] = b
    if w.returncode != 0: new = old
    if os.environ.get('MODE') == 'dflush':
        e = run(['flush', S]); run(['delayed', 'end', S, tok])
    else: e = run(['flush', S] if wcl else ['delayed', 'end', S, tok])
    g = run(['get', S, 'f'])
    st = run(['status', S]).stdout
    k = 'write rc %d, END rc %d, get %s%s' % (w.returncode, e.returncode, 'exact' if g.stdout == bytes(new) else ('rc %d' % g.returncode if g.returncode else 'WRONG'),
                                              ', LOST on record' if b'LOST' in st else '')
    tally[k] = tally.get(k, 0) + 1
    if e.returncode != 0 or g.stdout != bytes(new):
        print(k, '| rot', f[len(S):], off, 'first', o1, len(a), 'window', o2, len(b), '|', e.stderr[:110].decode(errors='replace'))
print(code, unit, tally)
subprocess.run(['rm', '-rf', D])
