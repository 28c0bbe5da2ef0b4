#!/usr/bin/env python3
# s19r: one byte of a random OSS object file flipped WHILE a CLI `write` runs (a rot landing inside the
# write's plan: review R18-4's window), nothing failed. Then `get`: each byte old or new (new everywhere
# when the write exited 0), never another value with exit 0. usage: EXARAID=... DIR CODE UNIT WP TRIALS SEED
import os, random, subprocess, sys, glob, time, threading
E = os.environ['EXARAID']; D, code, unit, wp, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
rnd = random.Random(seed); c = code.split(':')
if c[0] == 'rs': args = ['--oss', str(int(c[1]) + int(c[2])), '--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): args = ['--oss', c[1]]
else: args = ['--oss', c[2], '--p', c[1]]
def run(a, inp=None): return subprocess.run([E, 'store'] + a, input=inp, capture_output=True)
stats = {'refused': 0, 'wrong': 0, 'getfail': 0}
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'
    assert run(['init', S, '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + args).returncode == 0
    size = rnd.randrange(unit * 20, unit * 200); old = bytearray(rnd.randbytes(size))
    t0 = time.time(); assert run(['put', S, 'f'], bytes(old)).returncode == 0; took = time.time() - t0
    if wp != 'rmw': run(['flush', S])
    o = rnd.randrange(0, size); b = rnd.randbytes(rnd.randrange(1, size - o + unit * 4))
    files = [f for f in glob.glob(S + '/oss-*/objects/*') if os.path.getsize(f) > 0]
    f = rnd.choice(files); at = rnd.randrange(os.path.getsize(f)); delay = rnd.random() * took * 1.2  # within about a write's run time
    p = subprocess.Popen([E, 'store', 'write', S, 'f', '--offset', str(o)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    def flip():
        time.sleep(delay)
        with open(f, 'r+b') as h:
            h.seek(at); x = h.read(1)
            if x: h.seek(at); h.write(bytes([x[0] ^ (1 << rnd.randrange(8))]))
    th = threading.Thread(target=flip); th.start()
    out, err = p.communicate(b); th.join()
    new = bytearray(old); new.extend(bytearray(max(0, o + len(b) - len(new)))); new[o:o + len(b)] = b
    g = run(['get', S, 'f'])
    tag = '%d rot %s@%d after %.3fs write %d+%d rc %d' % (t, f[len(S):], at, delay, o, len(b), p.returncode)
    if p.returncode != 0: stats['refused'] += 1; print('refused', tag, err[-200:].decode(errors='replace').strip())
    if g.returncode != 0: stats['getfail'] += 1; print('GET FAILED', tag, g.stderr[-300:].decode(errors='replace').strip()); continue
    got = g.stdout
    if p.returncode == 0: bad = [i for i in range(max(len(got), len(new))) if i >= len(got) or i >= len(new) or got[i] != new[i]]
    else: bad = [i for i in range(len(got)) if not (i < len(new) and got[i] == new[i]) and not (got[i] == (old[i] if i < len(old) else 0))]
    if bad:
        stats['wrong'] += 1; i = bad[0]
        print('WRONG BYTES', tag, len(bad), 'first', i, 'got', got[i] if i < len(got) else None, 'old', old[i] if i < len(old) else None, 'new', new[i] if i < len(new) else None)
        keep = D + '-wrong-%d' % t; subprocess.run(['cp', '-a', S, keep])
print(code, unit, wp, 'trials', trials, stats)
subprocess.run(['rm', '-rf', D])
