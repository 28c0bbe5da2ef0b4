#!/usr/bin/env python3
# s21r: the s20f lead. A file is put, a write over it is cut (KP=write-torn-block, plan order, or another
# kill point), then one OSS (not a torn one unless ANY=1) has its home zone files emptied (MODE=empty),
# removed (MODE=rm) or cut to half (MODE=half) before the open; `get` must read old or new, or name LOST.
# OP=flush (wcl) / end (delayed): an acknowledged write, then its flush / END cut instead.
# usage: EXARAID=... [SEED=1] [KP=...] [MODE=...] s21r-emptied-zone.py CODE WP TRIALS [UNIT]   (CODE raid6:6, rs:4:2)
import os, random, subprocess, sys, glob
E = os.environ['EXARAID']; D = os.environ.get('DIR', '/tmp/s21r-tl')
code = sys.argv[1]; wp = sys.argv[2]; trials = int(sys.argv[3]); unit = int(sys.argv[4]) if len(sys.argv) > 4 else 4096
rnd = random.Random(int(os.environ.get('SEED', '1')))
c = code.split(':')
if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
elif c[0] in ('raid5', 'raid6'): n, extra = int(c[1]), []
else: n, extra = int(c[2]), ['--p', c[1]]  # xcode:5:5, hdp:5:4 ...
def run(a, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    return subprocess.run([E, 'store'] + a, input=inp, env=e, capture_output=True)
bad = killed = lost = 0
for t in range(trials):
    subprocess.run(['rm', '-rf', D])
    run(['init', D, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + extra)
    size = rnd.randrange(unit, unit * 16); old = os.urandom(size); run(['put', D, 'f'], old)
    off = rnd.randrange(size); ln = rnd.randrange(1, unit * 6); data = os.urandom(ln)
    new = bytearray(old); new.extend(b'\0' * max(0, off + ln - len(new))); new[off:off + ln] = data
    k = '' + os.environ.get("KP", "write-torn-block") + ':%d' % rnd.randrange(1, 8)
    if os.environ.get('OP') in ('flush', 'end'):  # the write is acknowledged; the settle moving it home is cut
        tok = run(['delayed', 'start', D, 'f']).stdout.decode().strip() if os.environ['OP'] == 'end' else None
        assert run(['write', D, 'f', '--offset', str(off)], data).returncode == 0
        old = bytes(new); k = '%s:%d' % (rnd.choice(['settle-element', 'settle-torn-block', 'write-torn-block']), rnd.randrange(1, 8))
        w = run(['flush', D] if tok is None else ['delayed', 'end', D, tok], b'', {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    else:
        w = run(['write', D, 'f', '--offset', str(off)], data, {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    if w.returncode not in (-9, 137): continue
    killed += 1
    torn = [l.split('/oss-')[1].split()[0] for l in w.stderr.decode().split('\n') if '/oss-' in l]
    o = rnd.choice([i for i in range(n) if str(i) not in torn] if os.environ.get('ANY') != '1' else list(range(n)))
    fs = [f for f in glob.glob(D + '/oss-%d/objects/*' % o) if not f.endswith('.cache')]
    mode = os.environ.get('MODE', 'empty')
    for f in fs:
        if mode == 'empty': os.truncate(f, 0)
        elif mode == 'rm': os.remove(f)
        else: os.truncate(f, os.path.getsize(f) // 2)
    g = run(['get', D, 'f'])
    desc = 'trial %d size %d write %d+%d %s torn %s emptied oss %d %s' % (t, size, off, ln, k, torn, o, mode)
    if g.returncode == 0:
        got = g.stdout
        wrong = [i for i in range(len(got)) if got[i] != (new[i] if i < len(new) else 0) and got[i] != (old[i] if i < len(old) else 0)]
        if len(got) not in (len(old), len(new)) or wrong:
            bad += 1; print('WRONG', len(got), len(old), len(new), len(wrong), wrong[:3], 'zeros', sum(1 for i in wrong if got[i] == 0), desc, g.stderr[-300:])
    elif b'lost' in g.stderr.lower(): lost += 1; print('  lost', desc, g.stderr[-200:])
    else: bad += 1; print('GET FAILED', desc, g.stderr[-300:])
print(code, wp, 'trials', trials, 'killed', killed, 'lost', lost, 'bad', bad)
subprocess.run(['rm', '-rf', D])
