#!/usr/bin/env python3
# s18r: one rotten byte somewhere, then a write killed -9 at a random instant; the next `get` must give
# each byte old or new (never the rotten value), or refuse naming bytes. usage: EXARAID=... s18r-rot-kill.py DIR CODE UNIT N SEED
import os, random, subprocess, sys, glob, time, signal
E = os.environ['EXARAID']; D, code, unit, n, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
rnd = random.Random(seed); c = code.split(':')
if c[0] == 'rs': args = ['--oss', str(int(c[1]) + int(c[2])), '--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): args = ['--oss', c[1]]
else: args = ['--oss', c[2], '--p', c[1]]
def run(a, inp=None): return subprocess.run([E, 'store'] + a, input=inp, capture_output=True)
tally = {}
for t in range(n):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'
    run(['init', S, '--code', c[0], '--stripe-unit', str(unit)] + args)
    old = bytearray(rnd.randbytes(unit * 20)); run(['put', S, 'f'], bytes(old))
    files = sorted(glob.glob(S + '/oss-*/objects/*')); f = rnd.choice(files); off = rnd.randrange(os.path.getsize(f))
    with open(f, 'r+b') as h: h.seek(off); x = h.read(1); h.seek(off); h.write(bytes([x[0] ^ 0x5a]))
    o2 = rnd.randrange(0, unit * 18); b = rnd.randbytes(rnd.randrange(1, unit * 4))
    p = subprocess.Popen([E, 'store', 'write', S, 'f', '--offset', str(o2)], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try: p.stdin.write(b); p.stdin.close()
    except BrokenPipeError: pass
    time.sleep(rnd.random() * float(os.environ.get("KILLMAX", "0.03"))); p.send_signal(signal.SIGKILL); p.wait()
    new = bytearray(old); new.extend(bytearray(max(0, o2 + len(b) - len(new)))); new[o2:o2 + len(b)] = b
    g = run(['get', S, 'f'])
    if g.returncode == 0:
        gs = g.stdout
        bad = [i for i in range(len(gs)) if not (i < len(new) and gs[i] == new[i]) and not (gs[i] == (old[i] if i < len(old) else 0))]
        k = 'get ok, %s' % ('WRONG' if bad else 'old/new')
        if bad: print('WRONG BYTES', t, f[len(S):], off, 'write', o2, len(b), 'at', bad[:3], len(bad))
    else:
        k = 'get refused: ' + ('lost' if b'lost' in g.stderr else g.stderr[-120:].decode(errors='replace'))
    tally[k] = tally.get(k, 0) + 1
    s = run(['scrub', S, '--repair']); tally['scrub rc %d' % s.returncode] = tally.get('scrub rc %d' % s.returncode, 0) + 1
print(code, unit, tally)
subprocess.run(['rm', '-rf', D])
