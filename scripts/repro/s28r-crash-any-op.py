#!/usr/bin/env python3
# s28r sweep: a crash ALONE (no rot, no failed disk) must never lose an acknowledged byte, whatever operation it
# cuts and at whichever kill point, on any code and stripe unit. Earlier crash-alone sweeps (s26r, s27r) cut a
# `write` or a window's END; this one also cuts a `put` that replaces a file, an `rm` of another file, a `flush`,
# a second window's END over the same stripes, and draws the kill points the others never drew (gap-fill-torn,
# extents-synced, remove-zone, settle-begun/stripe/synced; with RECOVERY_KILL=1 also the open's own journal-tail,
# journal-cut-write and settle points, in a second process: a crash inside recovery) beside the torn
# blocks and page cuts, with the plan's writes in plan order or in parallel (PLAN_ORDER=random by default).
# Per trial: init (CODES, WP, UNITS); put f, put g; an acknowledged write A into f; then the killed op (OPS);
# then, in new processes: `ls --json` (f listed with the right size; g listed whole or, for a cut rm, absent), `get f`
# and `get g` (every byte the last acknowledged writer's, or the cut op's where it was the last writer: LOST is a
# PROBLEM, nothing but the crash happened), `scrub` (exit 0), a write of g after a cut rm or put (reuse), then the
# code's tolerance of OSSs failed and `get f` again.
# Env: EXARAID (binary), CODES (common.py code_args specs; default array codes beside raid6:6 and rs:4:2),
#      WP (rmw|wcl|delayed|random, default random), UNITS (comma list of stripe units, default 4096,16384,65536),
#      OPS (comma list of write,put,rm,end,flush,end2; default all), POINTS (kill points; default by op, POINTS_OF),
#      NMAX (largest n, default 24), RECOVERY_KILL=1 (on a third of the killed trials, the next open (`ls`) killed
#      too; R27-2, WCL xcode/hdp, is that family: known), PLAN_ORDER (1|0|random), VERBOSE=1, KEEP=DIR (copy of the first problem store).
# usage: EXARAID=... s28r-crash-any-op.py DIR TRIALS SEED
# example: EXARAID=/tmp/s28r-bin WP=random python3 scripts/repro/s28r-crash-any-op.py /dev/shm/s28r-a 100 1
import json, os, random, shutil, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import code_args, run_store, wrong_bytes, tolerance

D, trials, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rnd = random.Random(seed); drnd = random.Random(seed * 31)
codes = os.environ.get('CODES', 'hcode:5:6,rdp:5:6,evenodd:5:7,xcode:5:5,dcode:5:5,hdp:5:4,raid6:6,rs:4:2').split(',')
units = [int(u) for u in os.environ.get('UNITS', '4096,16384,65536').split(',')]
ops = os.environ.get('OPS', 'write,put,rm,end,flush,end2').split(',')
WRITE_POINTS = ['write-torn-block', 'write-page-cut', 'write-page-cut-last', 'journal-record', 'gap-fill-torn',
                'extents-synced']
SETTLE_POINTS = ['settle-begun', 'settle-element', 'settle-stripe', 'settle-synced', 'settle-torn-block',
                 'settle-page-cut', 'settle-page-cut-last', 'journal-record', 'extents-synced']
POINTS_OF = {'write': WRITE_POINTS + ['settle-torn-block', 'settle-page-cut'],  # a WCL write may destage
             'put': WRITE_POINTS + ['remove-zone', 'settle-torn-block', 'settle-element'],
             'rm': ['remove-zone', 'journal-record', 'extents-synced', 'settle-element', 'settle-torn-block'],
             'flush': SETTLE_POINTS, 'end': SETTLE_POINTS, 'end2': SETTLE_POINTS}
points = os.environ.get('POINTS')
NMAX = int(os.environ.get('NMAX', '24'))
problems = killed = 0
per = {}
kept = False


def keep(S):
    global kept
    if os.environ.get('KEEP') and not kept:
        shutil.rmtree(os.environ['KEEP'], ignore_errors=True); shutil.copytree(S, os.environ['KEEP']); kept = True


def problem(what, desc, p=None):
    global problems
    problems += 1
    tail = p.stderr.decode(errors='replace')[-500:] if p is not None else ''
    print('PROBLEM', what, desc, tail, flush=True)


for t in range(trials):
    code = rnd.choice(codes); n, extra = code_args(code)
    unit = rnd.choice(units)
    wp = os.environ.get('WP', 'random')
    if wp == 'random': wp = rnd.choice(['rmw', 'wcl', 'delayed'])
    op = rnd.choice(ops)
    if op in ('end', 'end2') and wp != 'delayed': op = 'write'
    if op == 'flush' and wp == 'rmw': op = 'put'
    po = os.environ.get('PLAN_ORDER', 'random')
    if po == 'random': po = rnd.choice(['0', '1'])
    k = '%s:%d' % (rnd.choice(points.split(',') if points else POINTS_OF[op]), rnd.randrange(1, NMAX))
    env = {'EXARAID_KILL_AT': k}
    if po == '1': env['EXARAID_KILL_IN_PLAN_ORDER'] = '1'
    S = D + '/s'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    assert run_store(['init', S, '--oss', str(n), '--code', code.split(':')[0], '--stripe-unit', str(unit),
                      '--write-path', wp] + extra).returncode == 0, code
    size = rnd.randrange(unit, unit * 10); old = drnd.randbytes(size)
    assert run_store(['put', S, 'f'], old).returncode == 0
    gold = drnd.randbytes(rnd.randrange(1, unit * 4))
    assert run_store(['put', S, 'g'], gold).returncode == 0
    ws = []
    o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 3))
    assert run_store(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d, True))
    gnew = None  # g's possible new content (a cut put), or 'rm'
    o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 5))
    if op == 'write':
        w = run_store(['write', S, 'f', '--offset', str(o)], d, env); ws.append((o, d, False))
    elif op == 'put':
        gnew = drnd.randbytes(rnd.randrange(1, unit * 6))
        w = run_store(['put', S, 'g'], gnew, env)
    elif op == 'rm':
        gnew = 'rm'; w = run_store(['rm', S, 'g'], b'', env)
    elif op == 'flush':
        assert run_store(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d, True))
        w = run_store(['flush', S], b'', env)
    else:
        tok = run_store(['delayed', 'start', S, 'f']).stdout.decode().strip()
        assert run_store(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d, True))
        if op == 'end2':  # a second window over the same stripes, its END cut
            assert run_store(['delayed', 'end', S, tok]).returncode == 0
            tok = run_store(['delayed', 'start', S, 'f']).stdout.decode().strip()
            o2 = max(0, o + rnd.randrange(-unit, unit)); d2 = drnd.randbytes(rnd.randrange(1, unit * 3))
            assert run_store(['write', S, 'f', '--offset', str(o2)], d2).returncode == 0; ws.append((o2, d2, True))
        w = run_store(['delayed', 'end', S, tok], b'', env)
    if w.returncode == 0:
        if op == 'write': ws[-1] = (o, d, True)
        if gnew is not None: gold = None if gnew == 'rm' else gnew; gnew = None
    elif w.returncode != -9:
        print('op failed', op, k, w.returncode, w.stderr[-300:], flush=True); continue
    else: killed += 1
    torn = [l.split('killed at ')[1] for l in w.stderr.decode(errors='replace').split('\n') if 'killed at' in l]
    desc = 'trial %d %s %s unit %d op %s size %d writes %s g %s kill %s po %s %s' % (
        t, code, wp, unit, op, size, [(a, len(b), ack) for a, b, ack in ws],
        (None if gold is None else len(gold), gnew if gnew in (None, 'rm') else len(gnew)), k, po, torn)
    c = per.setdefault('%s %s %s' % (code, wp, op), [0, 0]); c[0] += 1
    before = problems
    if os.environ.get('RECOVERY_KILL') == '1' and w.returncode == -9 and rnd.random() < 0.33:
        k2 = '%s:%d' % (rnd.choice(['journal-tail', 'journal-cut-write', 'journal-record'] + SETTLE_POINTS),
                        rnd.randrange(1, NMAX))
        r2 = run_store(['ls', S], b'', {'EXARAID_KILL_AT': k2, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
        desc += ' recovery kill %s rc %d' % (k2, r2.returncode)
    ls = run_store(['ls', S, '--json'])
    try: names = {e['name']: e['size_bytes'] for e in json.loads(ls.stdout.decode())}
    except Exception: names = None; problem('ls --json failed', desc, ls)
    want_f = max([len(old)] + [a + len(b) for a, b, ack in ws if ack])
    g = run_store(['get', S, 'f'])
    if g.returncode != 0: problem('GET f FAILED (crash alone)', desc, g)
    elif wrong_bytes(g.stdout, old, ws) or len(g.stdout) < want_f:
        problem('WRONG BYTES f %d %s' % (len(wrong_bytes(g.stdout, old, ws)), wrong_bytes(g.stdout, old, ws)[:4]), desc)
    if names is not None and names.get('f') != (len(g.stdout) if g.returncode == 0 else names.get('f')):
        problem('ls size of f %s, get read %d' % (names.get('f'), len(g.stdout)), desc)
    gg = run_store(['get', S, 'g'])
    okg = [gold]  # None: absent
    if gnew == 'rm': okg.append(None)
    elif gnew is not None: okg.append(gnew)
    got_g = gg.stdout if gg.returncode == 0 else None
    if gg.returncode != 0 and b'no file' not in gg.stderr.lower() and b'not found' not in gg.stderr.lower():
        problem('GET g FAILED (crash alone)', desc, gg)
    elif got_g not in okg:
        problem('g neither old nor new: %s bytes' % (None if got_g is None else len(got_g)), desc, gg)
    if names is not None and (('g' in names) != (got_g is not None)):
        problem('ls lists g %s, get g %s' % ('g' in names, got_g is not None), desc)
    sc = run_store(['scrub', S])
    if sc.returncode != 0: problem('SCRUB rc %d after a crash alone' % sc.returncode, desc, sc)
    if gnew is not None:  # reuse of the name a cut put / rm touched
        g3 = drnd.randbytes(rnd.randrange(1, unit * 2))
        r = run_store(['put', S, 'g'], g3)
        if r.returncode != 0: problem('put g again', desc, r)
        else:
            rr = run_store(['get', S, 'g'])
            if rr.stdout != g3: problem('get g after put again', desc, rr)
    if problems == before:
        ys = list(range(n)); rnd.shuffle(ys)
        for y in ys[:tolerance(code)]: run_store(['fail', S, '--oss', str(y)])
        g2 = run_store(['get', S, 'f'])
        if g2.returncode != 0 or wrong_bytes(g2.stdout, old, ws):
            problem('with %s failed after a clean crash' % ys[:tolerance(code)], desc, g2)
    if problems > before:
        c[1] += 1; keep(S)
    elif os.environ.get('VERBOSE') == '1': print('ok', desc, flush=True)
print('s28r-crash-any-op seed', seed, trials, 'trials', killed, 'killed', problems, 'PROBLEMS; per [trials, problems]:',
      {k: v for k, v in per.items() if v[1]}, flush=True)
shutil.rmtree(D, ignore_errors=True)
