#!/usr/bin/env python3
# s18r: one rot-then-write case of s18r-rot-write-fuzz.py, repeated N times (the outcome depends on thread timing).
# usage: EXARAID=... s18r-rot-write-case.py DIR CODE UNIT FIRSTOFF FIRSTLEN ROTFILE ROTOFF WRITEOFF WRITELEN N
#   ROTFILE relative to the store dir, e.g. /oss-2/objects/0.data; FAIL=I: OSS I failed before the second write,
#   rebuilt after it
import os, random, subprocess, sys
E = os.environ['EXARAID']; D, code, unit = sys.argv[1], sys.argv[2], int(sys.argv[3])
o1, l1, rf, ro, o2, l2, n = int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7]), int(sys.argv[8]), int(sys.argv[9]), int(sys.argv[10])
c = code.split(':')
if c[0] == 'rs': args = ['--oss', str(int(c[1]) + int(c[2])), '--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): args = ['--oss', c[1]]
else: args = ['--oss', c[2], '--p', c[1]]
def run(a, inp=None): return subprocess.run([E, 'store'] + a, input=inp, capture_output=True)
tally = {}
for t in range(n):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'; r = random.Random(t)
    run(['init', S, '--code', c[0], '--stripe-unit', str(unit)] + args)
    a = r.randbytes(l1); b = r.randbytes(l2)
    run(['write', S, 'f', '--offset', str(o1)], a)
    with open(S + rf, 'r+b') as h:
        h.seek(ro); x = h.read(1); h.seek(ro); h.write(bytes([x[0] ^ 0x5a]))
    if os.environ.get('FAIL'): run(['fail', S, '--oss', os.environ['FAIL']])
    w = run(['write', S, 'f', '--offset', str(o2)], b)
    if os.environ.get('FAIL'): run(['rebuild', S, '--oss', os.environ['FAIL']])
    old = bytearray(o1) + a; new = bytearray(old); new.extend(bytearray(max(0, o2 + l2 - len(new)))); new[o2:o2 + l2] = b
    g = run(['get', S, 'f'])
    bad = [i for i in range(len(g.stdout)) if g.stdout[i] != new[i] and g.stdout[i] != (old[i] if i < len(old) else 0)] if g.returncode == 0 else None
    key = ('write rc %d' % w.returncode, 'get rc %d' % g.returncode, 'neither old nor new: %s' % (len(bad) if bad is not None else '-'))
    tally[key] = tally.get(key, 0) + 1
    if bad: print('WRONG BYTES run', t, 'at', bad[:3], 'got^old', [g.stdout[i] ^ (old[i] if i < len(old) else 0) for i in bad[:3]])
print(code, sys.argv[4:10], tally)
subprocess.run(['rm', '-rf', D])
