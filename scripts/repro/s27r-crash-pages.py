#!/usr/bin/env python3
# s27r sweep: a crash ALONE (no rot, no failed disk) must never lose an acknowledged byte, with the kill points
# the earlier crash-alone sweep (s26r-crash-alone.py) did not use: the page cuts of sessions 26a/26e
# (write-page-cut, write-page-cut-last: a pwrite stopped at a 4 KiB boundary of the zone file,
# the block new up to it and old from it under its old checksum) and, while a settle runs, settle-page-cut[-last] (s27c merged s26e's block-page-cut into write-page-cut);
# beside write-torn-block and journal-record. Stripe units of any size (16 KiB, 1 MiB: elements of many
# blocks, where a page cut leaves whole new blocks before it and whole old ones after it).
# Per trial: init (CODES, WP); put f; optional acknowledged write A (ACK=1); write B (or, WP=delayed on half the
# trials, a window's END over B's bytes) killed at KILLS' point with a random n (1..NMAX); `get`: every byte the
# put's / A's, or B's where B is the last writer, else a PROBLEM (LOST counts: nothing but the crash happened);
# `scrub` must exit 0; then TOLERANCE OSSs failed (2, or 1 on raid5; FAIL=N to choose) and `get` again.
# DEAD=1: one OSS failed BEFORE the killed write instead (a crash beside one dead disk on a code of two parities:
# within the tolerance; a LOST read is then counted apart, as "lost beside a dead disk", not as a problem).
# Env: EXARAID (binary), CODES (scripts/repro/common.py's code_args specs; default raid6:6,rs:4:2,raid5:5),
#      WP (rmw|wcl|delayed|random), ACK, NMAX (default 16), KILLS (comma list of kill point names, default
#      write-page-cut,write-page-cut-last,settle-page-cut,settle-page-cut-last), PLAN_ORDER (1 default: steps one at a
#      time; 0: a plan's writes run in parallel), DEAD, VERBOSE=1, KEEP=DIR (copy of the first problem store).
# usage: EXARAID=... s27r-crash-pages.py DIR UNIT TRIALS SEED
# example: EXARAID=/tmp/s27r-bin WP=rmw python3 scripts/repro/s27r-crash-pages.py /tmp/s27r-p 16384 100 1
import os, random, sys, shutil
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import code_args, run_store, wrong_bytes, tolerance
D, unit, trials, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed); drnd = random.Random(seed * 31)
codes = os.environ.get('CODES', 'raid6:6,rs:4:2,raid5:5').split(',')
kills = os.environ.get('KILLS', 'write-page-cut,write-page-cut-last,settle-page-cut,settle-page-cut-last').split(',')
NMAX = int(os.environ.get('NMAX', '16'))
dead = os.environ.get('DEAD') == '1'
problems = killed = lost = lost_dead = scrubbed_bad = 0
per_code = {}
kept = False


def keep(S):
    global kept
    if os.environ.get('KEEP') and not kept:
        shutil.rmtree(os.environ['KEEP'], ignore_errors=True); shutil.copytree(S, os.environ['KEEP']); kept = True


for t in range(trials):
    code = rnd.choice(codes); n, extra = code_args(code)
    wp = os.environ.get('WP', 'rmw')
    if wp == 'random': wp = rnd.choice(['rmw', 'wcl', 'delayed'])
    S = D + '/s'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    assert run_store(['init', S, '--oss', str(n), '--code', code.split(':')[0], '--stripe-unit', str(unit),
                      '--write-path', wp] + extra).returncode == 0, code
    size = rnd.randrange(unit, unit * 12); old = drnd.randbytes(size)
    assert run_store(['put', S, 'f'], old).returncode == 0
    ws = []
    if os.environ.get('ACK') == '1':
        o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 3))
        assert run_store(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d, True))
    o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 5))
    k = '%s:%d' % (rnd.choice(kills), rnd.randrange(1, NMAX))
    win = wp == 'delayed' and rnd.random() < 0.5
    env = {'EXARAID_KILL_AT': k}
    if os.environ.get('PLAN_ORDER', '1') == '1': env['EXARAID_KILL_IN_PLAN_ORDER'] = '1'
    failed = None
    if dead:
        failed = rnd.randrange(n)
        assert run_store(['fail', S, '--oss', str(failed)]).returncode == 0
    if win:
        tok = run_store(['delayed', 'start', S, 'f']).stdout.decode().strip()
        ww = run_store(['write', S, 'f', '--offset', str(o)], d)
        if dead and ww.returncode == 1 and b'failed OSS' in ww.stderr: continue  # by design: no cache copy on a dead OSS
        assert ww.returncode == 0, ww.stderr
        w = run_store(['delayed', 'end', S, tok], b'', env)
    else:
        w = run_store(['write', S, 'f', '--offset', str(o)], d, env)
    ws.append((o, d, win))  # a window's bytes were acknowledged by their write
    if w.returncode == 0: ws[-1] = (o, d, True)
    elif w.returncode != -9: print('B failed', w.returncode, w.stderr[-200:]); continue
    else: killed += 1
    torn = [l.split('killed at ')[1] for l in w.stderr.decode(errors='replace').split('\n') if 'killed at' in l]
    desc = 'trial %d %s %s unit %d size %d writes %s kill %s%s %s dead %s' % (
        t, code, wp, unit, size, [(a, len(b), ack) for a, b, ack in ws], k, ' (END)' if win else '', torn, failed)
    c = per_code.setdefault(code + ' ' + wp, [0, 0])
    c[0] += 1
    g = run_store(['get', S, 'f'])
    if g.returncode != 0:
        if dead and b'lost' in g.stderr.lower():
            lost_dead += 1; print('lost beside a dead disk', desc, g.stderr.decode(errors='replace')[-400:], flush=True)
            continue
        c[1] += 1; problems += 1; lost += b'lost' in g.stderr.lower(); keep(S)
        print('CRASH-ALONE GET FAILED', desc, g.stderr.decode(errors='replace')[-500:], flush=True); continue
    bad = wrong_bytes(g.stdout, old, ws)
    want = max([len(old)] + [a + len(b) for a, b, ack in ws if ack])
    if bad or len(g.stdout) < want:
        c[1] += 1; problems += 1; keep(S)
        print('WRONG BYTES', len(bad), bad[:4], len(g.stdout), want, desc, flush=True); continue
    if dead:
        if os.environ.get('VERBOSE') == '1': print('ok', desc, flush=True)
        continue
    sc = run_store(['scrub', S])
    if sc.returncode != 0:
        scrubbed_bad += 1; keep(S)
        print('SCRUB after a crash alone rc %d' % sc.returncode, desc, sc.stdout.decode()[-300:], flush=True)
        continue
    ys = list(range(n)); rnd.shuffle(ys)
    nfail = int(os.environ.get('FAIL', tolerance(code)))
    for y in ys[:nfail]: run_store(['fail', S, '--oss', str(y)])
    g2 = run_store(['get', S, 'f'])
    if g2.returncode != 0 or wrong_bytes(g2.stdout, old, ws):
        c[1] += 1; problems += 1
        print('FAILED OSSs after a clean crash', ys[:nfail], desc, g2.returncode,
              g2.stderr.decode(errors='replace')[-300:], flush=True)
    elif os.environ.get('VERBOSE') == '1': print('ok', desc, flush=True)
print('codes', codes, 'unit', unit, 'WP', os.environ.get('WP', 'rmw'), 'kills', kills, 'dead', dead, trials, 'trials',
      killed, 'killed', lost, 'lost (crash alone)', lost_dead, 'lost beside a dead disk', scrubbed_bad,
      'scrub not clean', problems, 'PROBLEMS', 'per code [trials, problems]:', per_code)
shutil.rmtree(D, ignore_errors=True)
