#!/usr/bin/env python3
# s25r: randomized R24-4 (s24r-laid-over-stale.py): a STALE parity element (an acknowledged rmw write A's update of
# one parity slot put back: a lost write), a delayed window write W (random place), its END killed at a random
# point (or not), then ONE rotten bit in a random home slot byte (data or parity, any OSS; the slot's payload, not
# its crcs unless CRC=1) of a stripe W or A touched; `get`: every byte A's/the put's (outside W) or W's/the bytes
# before it (inside W: END cut), or LOST named. Then, if get read every byte, `scrub` (check) and a second `get`.
# Faults: one stale parity element and one rotten bit: two, on raid6 / rs k+2 (the END's cut is a crash).
# Env: EXARAID, CODE (raid6:6 default; rs:4:2), KEEP=DIR (image of the first WRONG trial, before its flip;
#      the flip is printed). usage: EXARAID=... s25r-stale-rot-end.py DIR UNIT TRIALS SEED
# example: EXARAID=/tmp/s25r-bin python3 scripts/repro/s25r-stale-rot-end.py /tmp/s25r-s 4096 60 1
import os, subprocess, sys, random, glob, shutil
E = os.environ['EXARAID']
D, unit, trials, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
SB = unit + unit // 4096 * 4
c = os.environ.get('CODE', 'raid6:6').split(':')
n, extra = (int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]) if c[0] == 'rs' else (int(c[1]), [])
k_data = n - 2
rnd = random.Random(seed); drnd = random.Random(seed * 31)
KILLS = ['settle-begun:1', 'settle-element:%d', 'settle-torn-block:%d', 'settle-stripe:1', 'journal-record:%d', 'write-torn-block:%d', 'none']
bad = lost = ok = 0; kept = False

def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr:
        global bad; bad += 1; print('PROBLEM hang/panic', args, p.stderr[-600:])
    return p

def slots(S, pat):
    return {f: open(f, 'rb').read() for f in glob.glob(S + '/oss-*/objects/' + pat)}

for t in range(trials):
    S = D + '/s'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', 'delayed'] + extra).returncode == 0
    stripe = unit * k_data
    size = rnd.randrange(stripe, stripe * 3); old = drnd.randbytes(size)
    assert run(['put', S, 'f'], old).returncode == 0
    par0 = slots(S, '*.parity')
    ao = rnd.randrange(size - 1); a = drnd.randbytes(rnd.randrange(1, min(size - ao, unit * 2) + 1))
    assert run(['write', S, 'f', '--offset', str(ao)], a).returncode == 0
    cur = bytearray(old); cur[ao:ao + len(a)] = a
    par1 = slots(S, '*.parity')
    changed = sorted((f, i) for f, b in par0.items() for i in range(len(b) // SB) if par1[f][i * SB:(i + 1) * SB] != b[i * SB:(i + 1) * SB])
    if not changed: continue
    f, i = rnd.choice(changed)
    b = bytearray(par1[f]); b[i * SB:(i + 1) * SB] = par0[f][i * SB:(i + 1) * SB]; open(f, 'wb').write(b)
    stale = '%s slot %d' % (f[len(S):], i)
    tok = run(['delayed', 'start', S, 'f']).stdout.decode().split()[-1]
    wo = rnd.randrange(size); w = drnd.randbytes(rnd.randrange(1, unit * 3))
    assert run(['write', S, 'f', '--offset', str(wo)], w).returncode == 0
    new = bytearray(cur) + bytearray(max(0, wo + len(w) - len(cur))); new[wo:wo + len(w)] = w
    k = rnd.choice(KILLS)
    if '%d' in k: k = k % rnd.randrange(1, 6)
    env = {} if k == 'none' else {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'}
    if os.environ.get('KEEP') and not kept:
        shutil.rmtree(os.environ['KEEP'], ignore_errors=True); shutil.copytree(D, os.environ['KEEP'], symlinks=True)
    e = run(['delayed', 'end', S, tok], env=env)
    homes = [z for z in glob.glob(S + '/oss-*/objects/0.data') + glob.glob(S + '/oss-*/objects/0.parity') if os.path.getsize(z) >= SB]
    z = rnd.choice(homes); nslots = os.path.getsize(z) // SB; si = rnd.randrange(nslots)
    off = si * SB + (rnd.randrange(SB) if os.environ.get('CRC') == '1' else rnd.randrange(unit)); m = 1 << rnd.randrange(8)
    bb = bytearray(open(z, 'rb').read()); bb[off] ^= m; open(z, 'wb').write(bb)
    desc = 'trial %d %s unit %d size %d A %d+%d stale %s W %d+%d END kill %s rc %d flip %s@%d^%d' % (
        t, ':'.join(c), unit, size, ao, len(a), stale, wo, len(w), k, e.returncode, z[len(S):], off, m)
    g = run(['get', S, 'f'])
    if g.returncode == 0:
        got = g.stdout
        wrong = [x for x in range(len(got)) if not ((x < len(new) and got[x] == new[x]) or (x < len(cur) and got[x] == cur[x] and (wo <= x < wo + len(w))) or (x >= len(cur) and got[x] == 0 and wo <= x < wo + len(w)))]
        if len(got) not in (len(cur), len(new)): wrong = wrong or [-1]
        if wrong:
            bad += 1; print('WRONG BYTES', len(wrong), wrong[:4], desc, flush=True)
            if os.environ.get('KEEP') and not kept: kept = True; print('kept image', os.environ['KEEP'])
        else:
            ok += 1
            s = run(['scrub', S])
            g2 = run(['get', S, 'f'])
            if g2.returncode == 0 and g2.stdout != got: bad += 1; print('SECOND GET DIFFERS', desc)
    elif b'lost' in g.stderr.lower(): lost += 1
    else: bad += 1; print('GET FAILED', desc, g.stderr[-300:])
print(':'.join(c), unit, trials, 'trials', ok, 'read', lost, 'lost named', bad, 'PROBLEMS')
shutil.rmtree(D, ignore_errors=True)
