#!/usr/bin/env python3
# s25r sweep: names reused after crashes. Per trial: init (WP wcl/delayed/rmw); put f and g; acknowledged writes
# into f (WCL: cached; delayed: inside a window, ended or left open); then ONE of: `put f` (replace, new size),
# `rm f`, `put f` of an empty input, killed at a random point (remove-zone:n, journal-record:n,
# write-torn-block:n, settle-*:n); then `ls` (f listed iff its get succeeds), `get f` (old content whole, with
# the acknowledged writes, or the new content whole; after a killed rm: old whole or absent), `get g` (exact);
# then `put f` again (a third content) and a write into it, `get f` exact, two OSSs failed, `get f`/`get g` exact.
# Faults: the crash only (two failed OSSs at the end, after it was settled): within raid6.
# Env: EXARAID, WP (random default), CODE (raid6:6; rs:4:2). usage: EXARAID=... s25r-replace-kill.py DIR UNIT TRIALS SEED
# example: EXARAID=/tmp/s25r-bin python3 scripts/repro/s25r-replace-kill.py /tmp/s25r-p 4096 60 1
import os, random, subprocess, sys, shutil
E = os.environ['EXARAID']
D, unit, trials, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed); drnd = random.Random(seed * 31)
c = os.environ.get('CODE', 'raid6:6').split(':')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import code_args  # s26r: array codes too (hcode:5:6 ...)
n, extra = code_args(os.environ.get('CODE', 'raid6:6'))
POINTS = ['remove-zone', 'journal-record', 'write-torn-block', 'settle-begun', 'settle-element', 'settle-synced']
bad = killed = 0

def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr:
        global bad; bad += 1; print('PROBLEM hang/panic', args, p.stderr[-600:])
    return p

def listed(S):
    out = run(['ls', S]).stdout.decode().split('\n')
    return {l.split()[1]: int(l.split()[0]) for l in out if len(l.split()) == 2}

for t in range(trials):
    S = D + '/s'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    wp = os.environ.get('WP', 'random')
    if wp == 'random': wp = rnd.choice(['rmw', 'wcl', 'delayed'])
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + extra).returncode == 0
    f0 = bytearray(drnd.randbytes(rnd.randrange(1, unit * 10))); g0 = drnd.randbytes(rnd.randrange(1, unit * 6))
    assert run(['put', S, 'f'], bytes(f0)).returncode == 0 and run(['put', S, 'g'], g0).returncode == 0
    tok = None
    if wp == 'delayed' and rnd.random() < 0.6: tok = run(['delayed', 'start', S, 'f']).stdout.decode().split()[-1]
    for _ in range(rnd.randrange(0, 4)):
        o = rnd.randrange(len(f0) + unit); d = drnd.randbytes(rnd.randrange(1, unit * 2))
        assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0
        if o + len(d) > len(f0): f0 += bytearray(o + len(d) - len(f0))
        f0[o:o + len(d)] = d
    if tok and rnd.random() < 0.5: assert run(['delayed', 'end', S, tok]).returncode == 0; tok = None
    op = rnd.choice(['put', 'put', 'rm', 'empty'])
    if op == 'rm' and tok: op = 'put'
    if op == 'put' and tok: op = 'put-open'  # refused while the window is open: still try it killed
    new = drnd.randbytes(rnd.randrange(1, unit * 10)) if op != 'empty' else b''
    kp = '%s:%d' % (rnd.choice(POINTS), rnd.randrange(1, 8))
    env = {'EXARAID_KILL_AT': kp, 'EXARAID_KILL_IN_PLAN_ORDER': '1'}
    p = run(['rm', S, 'f'], b'', env) if op == 'rm' else run(['put', S, 'f'], new, env)
    if p.returncode == -9: killed += 1
    desc = 'trial %d %s %s f %d g %d window %s op %s (%d bytes) kill %s rc %d' % (t, ':'.join(c), wp, len(f0), len(g0), tok is not None, op, len(new), kp, p.returncode)
    ls = listed(S)
    gf = run(['get', S, 'f'])
    if gf.returncode == 0:
        okv = [bytes(f0)] + ([] if op == 'rm' else [new])
        if p.returncode == 0 and op != 'put-open': okv = [new] if op != 'rm' else []
        if gf.stdout not in okv: bad += 1; print('WRONG f', len(gf.stdout), [len(x) for x in okv], desc)
        if ls.get('f') != len(gf.stdout): bad += 1; print('LS DISAGREES', ls, len(gf.stdout), desc)
    else:
        if op != 'rm' or b'no such' not in gf.stderr.lower() and b'not found' not in gf.stderr.lower() and b'does not exist' not in gf.stderr.lower():
            if not (op == 'rm'): bad += 1; print('GET f FAILED', desc, gf.stderr[-300:])
        if 'f' in ls and op == 'rm': bad += 1; print('LS LISTS a removed f', ls, desc, gf.stderr[-200:])
    gg = run(['get', S, 'g'])
    if gg.returncode != 0 or gg.stdout != g0: bad += 1; print('g WRONG/FAILED', desc, gg.stderr[-300:])
    if tok: run(['delayed', 'end', S, tok])
    f2 = bytearray(drnd.randbytes(rnd.randrange(1, unit * 8)))
    r = run(['put', S, 'f'], bytes(f2))
    if r.returncode != 0: bad += 1; print('PUT AGAIN FAILED', desc, r.stderr[-300:]); continue
    o = rnd.randrange(len(f2)); d = drnd.randbytes(rnd.randrange(1, unit))
    assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0
    if o + len(d) > len(f2): f2 += bytearray(o + len(d) - len(f2))
    f2[o:o + len(d)] = d
    if run(['get', S, 'f']).stdout != bytes(f2): bad += 1; print('WRONG f after put again', desc)
    ys = list(range(n)); rnd.shuffle(ys)
    for y in ys[:2]: run(['fail', S, '--oss', str(y)])
    a, b = run(['get', S, 'f']), run(['get', S, 'g'])
    if a.stdout != bytes(f2) or b.stdout != g0: bad += 1; print('WRONG/FAILED with two failed', ys[:2], desc, a.stderr[-200:], b.stderr[-200:])
print(':'.join(c), unit, trials, 'trials', killed, 'killed', bad, 'PROBLEMS')
shutil.rmtree(D, ignore_errors=True)
