#!/usr/bin/env python3
# s23r: replay flips on an image kept by s23r-two-cut-writes.py (KEEP=DIR: DIR, DIR.old, DIR.wJ-OFF), then get and check.
# usage: python3 s23r-replay.py KEEPDIR FILE@OFF^MASK ...   (binary /tmp/s23r-bin/exaraid; scratch /tmp/s23r-w/rp)
# replay: KEEP image + flips (file@off^mask ...) -> get -> check against put/A(acknowledged?)/B
import sys, subprocess, os, glob
K = sys.argv[1]; flips = sys.argv[2:]
E = '/tmp/s23r-bin/exaraid'; S = '/tmp/s23r-w/rp'
subprocess.run(['rm', '-rf', S]); subprocess.run(['cp', '-a', K, S])
old = open(K + '.old', 'rb').read()
ws = []
for f in sorted(glob.glob(K + '.w*')):
    o = int(f.split('-')[-1]); ws.append((o, open(f, 'rb').read()))
for fl in flips:
    f, rest = fl.split('@'); off, mask = rest.split('^'); off = int(off); mask = int(mask, 0)
    with open(S + '/' + f, 'r+b') as h:
        h.seek(off); b = h.read(1); h.seek(off); h.write(bytes([b[0] ^ mask]))
g = subprocess.run([E, 'store', 'get', S, 'f'], capture_output=True)
if g.returncode != 0: print('rc', g.returncode, g.stderr[-300:]); sys.exit()
got = g.stdout
def vals(i):
    v = {old[i] if i < len(old) else 0}
    for o, d in ws:
        if o <= i < o + len(d): v.add(d[i - o])
    return v
wrong = [i for i in range(len(got)) if got[i] not in vals(i)]
print('len', len(got), 'wrong', len(wrong), wrong[:5], [(got[i], sorted(vals(i))) for i in wrong[:2]])
