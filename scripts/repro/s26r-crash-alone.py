#!/usr/bin/env python3
# s26r sweep: a crash ALONE (no rot, no failed disk) must never lose an acknowledged byte. The other crash sweeps
# accept "LOST named" as a pass (they add rot or a dead disk, where a loss may be right), so a loss the crash
# alone causes hides there among the right ones (R26-1 was found as a failed rebuild). Per trial: init (CODES,
# WP); put f; optional acknowledged write A (ACK=1); write B (or, WP=delayed on half the trials, a window's
# END over B's bytes) killed at write-torn-block:n (plan order) or journal-record:n (SETTLE_KILLS=1: also
# settle-torn-block/element:n, which cut an END or a destage); `get`: every byte the put's/A's, or B's where
# B is the last writer, else a PROBLEM (LOST counts too: nothing but the crash happened); then `scrub`
# (exit 0 expected: the open settled the crash) and, on a clean trial, two OSSs failed and `get` again.
# Env: EXARAID (binary), CODES (comma list, scripts/repro/common.py's code_args: hcode:5:6, raid6:6, rs:4:2 ..;
#      default the array codes), WP (rmw|wcl|delayed|random), ACK, SETTLE_KILLS, NMAX (largest n, default 16),
#      KILL (one kill point for every trial, e.g. journal-record:1),
#      PAGE_CUTS=1 (s27c: write-page-cut[-last]:n drawn beside write-torn-block/journal-record, and
#      settle-page-cut[-last]:n beside the settle points: a pwrite stopped at a 4 KiB boundary; s27b's runs in
#      docs/results/s27b-array-edge-crcs.md drew page cuts at 0.5 and no settle page cuts),
#      BEFORE_BLOCK=1 (s29e: write-before-block:n drawn at 0.4 over the write's draw: the process dies just before
#      the n-th block write, every earlier one whole; always plan order; after PAGE_CUTS' draw, before SETTLE_KILLS'),
#      VERBOSE=1 (print every trial).
# usage: EXARAID=... s26r-crash-alone.py DIR UNIT TRIALS SEED
# example: EXARAID=/tmp/s26r-bin WP=rmw python3 scripts/repro/s26r-crash-alone.py /tmp/s26r-c 16384 100 1
import os, random, subprocess, sys, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import code_args
E = os.environ['EXARAID']
D, unit, trials, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed); drnd = random.Random(seed * 31)
codes = os.environ.get('CODES', 'hcode:5:6,rdp:5:6,evenodd:5:7,xcode:5:5,dcode:5:5,hdp:5:4').split(',')
NMAX = int(os.environ.get('NMAX', '16'))
problems = killed = lost = scrubbed_bad = 0
per_code = {}

def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, p.stderr[-600:], flush=True)
    return p

def wrong_bytes(got, old, ws):
    bad = []
    for x in range(len(got)):
        vals = {old[x] if x < len(old) else 0}
        for o, d, ack in ws:
            if o <= x < o + len(d):
                if ack: vals = {d[x - o]}
                else: vals.add(d[x - o])
        if got[x] not in vals: bad.append(x)
    return bad

for t in range(trials):
    code = rnd.choice(codes); n, extra = code_args(code)
    wp = os.environ.get('WP', 'rmw')
    if wp == 'random': wp = rnd.choice(['rmw', 'wcl', 'delayed'])
    S = D + '/s'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    assert run(['init', S, '--oss', str(n), '--code', code.split(':')[0], '--stripe-unit', str(unit),
                '--write-path', wp] + extra).returncode == 0, code
    size = rnd.randrange(unit, unit * 12); old = drnd.randbytes(size)
    assert run(['put', S, 'f'], old).returncode == 0
    ws = []
    if os.environ.get('ACK') == '1':
        o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 3))
        assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d, True))
    o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 5))
    k = rnd.choice(['write-torn-block:%d' % rnd.randrange(1, NMAX), 'journal-record:%d' % rnd.randrange(1, 6)])
    page_cuts = os.environ.get('PAGE_CUTS') == '1'
    if page_cuts and rnd.random() < 0.6:
        k = rnd.choice(['write-page-cut:%d', 'write-page-cut-last:%d']) % rnd.randrange(1, NMAX)
    if os.environ.get('BEFORE_BLOCK') == '1' and rnd.random() < 0.4:
        k = 'write-before-block:%d' % rnd.randrange(1, NMAX)
    if os.environ.get('SETTLE_KILLS') == '1' and rnd.random() < 0.4:
        settle_points = ['settle-torn-block:%d', 'settle-element:%d']
        if page_cuts: settle_points += ['settle-page-cut:%d', 'settle-page-cut-last:%d']
        k = rnd.choice(settle_points) % rnd.randrange(1, NMAX)
    if os.environ.get('KILL'): k = os.environ['KILL']  # one kill point for every trial (journal-record:1: R26-3)
    win = wp == 'delayed' and rnd.random() < 0.5
    env = {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'}
    if win:
        tok = run(['delayed', 'start', S, 'f']).stdout.decode().strip()
        assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0
        w = run(['delayed', 'end', S, tok], b'', env)
    else:
        w = run(['write', S, 'f', '--offset', str(o)], d, env)
    ws.append((o, d, win))  # a window's bytes were acknowledged by their write
    if w.returncode == 0: ws[-1] = (o, d, True)
    elif w.returncode != -9: print('B failed', w.returncode, w.stderr[-200:]); continue
    else: killed += 1
    torn = [l.split('killed at ')[1] for l in w.stderr.decode(errors='replace').split('\n') if 'killed at' in l]
    desc = 'trial %d %s %s unit %d size %d writes %s kill %s%s %s' % (
        t, code, wp, unit, size, [(a, len(b), ack) for a, b, ack in ws], k, ' (END)' if win else '', torn)
    c = per_code.setdefault(code + ' ' + wp, [0, 0])
    c[0] += 1
    g = run(['get', S, 'f'])
    if g.returncode != 0:
        c[1] += 1; problems += 1; lost += b'lost' in g.stderr.lower()
        print('CRASH-ALONE GET FAILED', desc, g.stderr.decode(errors='replace')[-500:], flush=True); continue
    bad = wrong_bytes(g.stdout, old, ws)
    want = max([len(old)] + [a + len(b) for a, b, ack in ws if ack])
    if bad or len(g.stdout) < want:
        c[1] += 1; problems += 1; print('WRONG BYTES', len(bad), bad[:4], len(g.stdout), want, desc, flush=True); continue
    sc = run(['scrub', S])
    if sc.returncode != 0:
        scrubbed_bad += 1; print('SCRUB after a crash alone rc %d' % sc.returncode, desc, sc.stdout.decode()[-300:], flush=True)
        continue
    ys = list(range(n)); rnd.shuffle(ys)
    for y in ys[:2]: run(['fail', S, '--oss', str(y)])
    g2 = run(['get', S, 'f'])
    if g2.returncode != 0 or wrong_bytes(g2.stdout, old, ws):
        c[1] += 1; problems += 1
        print('TWO FAILED after a clean crash', ys[:2], desc, g2.returncode, g2.stderr.decode(errors='replace')[-300:], flush=True)
    elif os.environ.get('VERBOSE') == '1': print('ok', desc, flush=True)
print('codes', codes, 'unit', unit, 'WP', os.environ.get('WP', 'rmw'), trials, 'trials', killed, 'killed', lost,
      'lost (crash alone)', scrubbed_bad, 'scrub not clean', problems, 'PROBLEMS', 'per code [trials, problems]:', per_code)
shutil.rmtree(D, ignore_errors=True)
