#!/usr/bin/env python3
# s24r: reach recovery's `laid_over_decode_confirmed` (a data block failing its checksum, a delayed window's
# cached bytes laid over part of it, END cut) beside a STALE parity element (a lost write: the parity slot
# restored from before an acknowledged rmw write). raid6 6 OSSs, 4 KiB unit (one block per element), delayed.
# Two faults (stale parity, one rotten bit) on raid6: within the tolerance. Every byte must be old/new or LOST named.
# usage: EXARAID=... s24r-laid-over-stale.py DIR   (tries END killed at each KILLS point, stale P and stale Q)
import os, subprocess, sys, random
E = os.environ['EXARAID']; D = sys.argv[1]
SB = 4096 + 4
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr: print('PROBLEM hang/panic', args, p.stderr[-600:])
    return p
r = random.Random(1); old = bytearray(r.randbytes(32768)); w1 = r.randbytes(50); w2 = r.randbytes(2000)
kills = os.environ.get('KILLS', 'settle-begun:1 settle-element:1 settle-element:2 settle-torn-block:1 settle-torn-block:2 settle-stripe:1 journal-record:1 journal-record:2 journal-record:3').split()
res = {}
for which in (0, 1):  # the first / second parity OSS of stripe 0 made stale
  for k in kills:
    S = D; subprocess.run(['rm', '-rf', S])
    assert run(['init', S, '--oss', '6', '--code', 'raid6', '--stripe-unit', '4096', '--write-path', 'delayed']).returncode == 0
    assert run(['put', S, 'f'], bytes(old)).returncode == 0
    import glob
    par0 = {f: open(f, 'rb').read() for f in glob.glob(S + '/oss-*/objects/0.parity')}
    assert run(['write', S, 'f', '--offset', '100'], w1).returncode == 0  # acknowledged; one parity update is lost below
    cur = bytearray(old); cur[100:150] = w1
    changed = sorted((f, i) for f, b in par0.items() for i in range(len(b) // SB) if open(f, 'rb').read()[i * SB:(i + 1) * SB] != b[i * SB:(i + 1) * SB])
    assert len(changed) == 2, changed
    f, i = changed[which]; b = bytearray(open(f, 'rb').read()); b[i * SB:(i + 1) * SB] = par0[f][i * SB:(i + 1) * SB]; open(f, 'wb').write(b)
    col1 = [(f, i) for f in glob.glob(S + '/oss-*/objects/0.data') for i in range(os.path.getsize(f) // SB) if open(f, 'rb').read()[i * SB:i * SB + 4096] == old[4096:8192]]
    assert len(col1) == 1, col1
    t = run(['delayed', 'start', S, 'f']).stdout.decode().split()[-1]
    assert run(['write', S, 'f', '--offset', '5000'], w2).returncode == 0
    new = bytearray(cur); new[5000:7000] = w2
    e = run(['delayed', 'end', S, t], env={'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    f, i = col1[0]; b = bytearray(open(f, 'rb').read()); b[i * SB + 3000] ^= 4; open(f, 'wb').write(b)  # rot outside the window's bytes
    g = run(['get', S, 'f'])
    if g.returncode == 0:
        got = g.stdout
        wrong = [i for i in range(len(got)) if got[i] != new[i] and got[i] != cur[i]]
        res[(which, k)] = 'end rc %d: %s' % (e.returncode, 'WRONG %d first %s' % (len(wrong), wrong[:4]) if wrong else 'ok')
    else:
        res[(which, k)] = 'end rc %d: get rc %d %s' % (e.returncode, g.returncode, g.stderr[-160:].decode(errors='replace').strip())
    print(which, k, res[(which, k)], flush=True)
subprocess.run(['rm', '-rf', D])
