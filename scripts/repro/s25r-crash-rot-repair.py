#!/usr/bin/env python3
# s25r sweep: a crash, then ONE rotten bit, then `scrub --repair`, then a check that what the repair wrote is
# right. Per trial: init (2-parity code, WP); put f; optional acknowledged write A (ACK=1); write B killed at a
# random point (write-torn-block:n in plan order, or journal-record:n); an open (`status`: recovery settles the
# crash); one bit flipped in a random byte of a random zone file (any OSS; ZONES glob, default '*'); `scrub
# --repair --json`; `get` (every byte the last acknowledged write's, or B's where B is the last writer over it,
# or LOST named); then, when the scrub left nothing unrepairable, two OSSs failed and `get` again (parity and
# data the repair rewrote now carry the read: a repair from a wrong decode shows as wrong bytes).
# Faults: B's torn block and one rotten bit: two, on codes with two parities (the rot lands after the open
# settled the crash, so at most one fault at a time there); at the second get: two failed OSSs.
# Env: EXARAID, WP (rmw|wcl|delayed|random), CODES (default raid6:6,rs:4:2), ACK, ZONES, BEFORE=1 (flip before
#      the open instead of after it: crash and rot together), SETTLE_KILLS=1 (s26r: half the kills at a settle
#      point, settle-torn-block/element/stripe/synced:n, which cut a window's END or a WCL destage), VERBOSE=1
#      (s26r: print every LOST read), KEEP=DIR (image of the first problem trial, before
#      its scrub). usage: EXARAID=... s25r-crash-rot-repair.py DIR UNIT TRIALS SEED
# example: EXARAID=/tmp/s25r-bin WP=random ACK=1 python3 scripts/repro/s25r-crash-rot-repair.py /tmp/s25r-r 4096 60 1
import os, random, subprocess, sys, glob, shutil, json
E = os.environ['EXARAID']
D, unit, trials, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed); drnd = random.Random(seed * 31)
codes = os.environ.get('CODES', 'raid6:6,rs:4:2').split(',')
problems = lost1 = lost2 = killed = 0
kept = False

def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, p.stderr[-600:])
    return p

def allowed(x, old, ws):
    # ws: list of (offset, bytes, acknowledged) in order. The last acknowledged writer over x fixes x;
    # a cut write after it may also show.
    vals = {old[x] if x < len(old) else 0}
    for o, d, ack in ws:
        if o <= x < o + len(d):
            if ack: vals = {d[x - o]}
            else: vals.add(d[x - o])
    return vals

def check(g, old, ws, desc, what):
    global problems
    if g.returncode == 0:
        got = g.stdout
        wrong = [x for x in range(len(got)) if got[x] not in allowed(x, old, ws)]
        want_min = max([len(old)] + [o + len(d) for o, d, a in ws if a])
        if wrong:
            problems += 1; print('WRONG BYTES', what, len(wrong), wrong[:4], desc); return 'wrong'
        if len(got) < want_min:
            problems += 1; print('SHORT', what, len(got), want_min, desc); return 'wrong'
        return 'ok'
    if b'lost' in g.stderr.lower(): return 'lost'
    problems += 1; print('GET FAILED', what, desc, g.stderr[-400:]); return 'fail'

for t in range(trials):
    code = rnd.choice(codes); c = code.split(':')
    if c[0] == 'rs': n, extra = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
    elif c[0] in ('raid5', 'raid6'): n, extra = int(c[1]), []
    else: n, extra = int(c[2]), ['--p', c[1]]
    wp = os.environ.get('WP', 'rmw')
    if wp == 'random': wp = rnd.choice(['rmw', 'wcl', 'delayed'])
    S = D + '/s'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp] + extra).returncode == 0
    size = rnd.randrange(unit, unit * 12); old = drnd.randbytes(size)
    assert run(['put', S, 'f'], old).returncode == 0
    ws = []
    if os.environ.get('ACK') == '1':
        o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 3))
        assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0; ws.append((o, d, True))
    o = rnd.randrange(size); d = drnd.randbytes(rnd.randrange(1, unit * 5))
    k = rnd.choice(['write-torn-block:%d' % rnd.randrange(1, 10), 'journal-record:%d' % rnd.randrange(1, 6)])
    if os.environ.get('SETTLE_KILLS') == '1' and rnd.random() < 0.5:  # s26r: a settle's points (an END's move home)
        k = rnd.choice(['settle-torn-block:%d', 'settle-element:%d', 'settle-stripe:%d', 'settle-synced:%d']) % rnd.randrange(1, 8)
    win = wp == 'delayed' and rnd.random() < 0.5
    if win:
        tok = run(['delayed', 'start', S, 'f']).stdout.decode().strip()
        assert run(['write', S, 'f', '--offset', str(o)], d).returncode == 0
        w = run(['delayed', 'end', S, tok], b'', {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    else:
        w = run(['write', S, 'f', '--offset', str(o)], d, {'EXARAID_KILL_AT': k, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    ws.append((o, d, win))  # a window's bytes were acknowledged by their write
    if w.returncode == -9: killed += 1
    elif w.returncode == 0: ws[-1] = (o, d, True)
    else: print('B failed', w.returncode, w.stderr[-200:]); continue
    if os.environ.get('BEFORE') != '1': run(['status', S])
    zs = sorted(glob.glob(S + '/oss-*/objects/' + os.environ.get('ZONES', '*')))
    zs = [z for z in zs if os.path.getsize(z) > 0]
    if not zs: continue  # no such zone file left (the open moved the cache home)
    z = rnd.choice(zs); i = rnd.randrange(os.path.getsize(z)); m = 1 << rnd.randrange(8)
    desc = 'trial %d %s %s unit %d size %d writes %s kill %s%s flip %s@%d^%d' % (
        t, code, wp, unit, size, [(a, len(b), ack) for a, b, ack in ws], k, ' (END)' if win else '', z[len(S):], i, m)
    if os.environ.get('KEEP') and not kept:
        shutil.rmtree(os.environ['KEEP'], ignore_errors=True); shutil.copytree(D, os.environ['KEEP'], symlinks=True)
    with open(z, 'r+b') as h:
        h.seek(i); b0 = h.read(1); h.seek(i); h.write(bytes([b0[0] ^ m]))
    sc = run(['scrub', S, '--repair', '--json'])
    try: rep = json.loads(sc.stdout.decode())
    except Exception: rep = None
    unrep = rep is None or rep.get('unrepairable') or rep.get('lost_ranges') or rep.get('unsettled_stripes')
    desc += ' scrub rc %d%s' % (sc.returncode, ' unrepairable' if unrep else '')
    g1 = run(['get', S, 'f']); r1 = check(g1, old, ws, desc, 'after repair')
    r2 = 'skip'
    if not unrep and r1 == 'ok':
        ys = list(range(n)); rnd.shuffle(ys)
        for y in ys[:2]: run(['fail', S, '--oss', str(y)])
        g2 = run(['get', S, 'f']); r2 = check(g2, old, ws, desc + ' then fail %s' % ys[:2], 'two failed')
        if r2 == 'lost': print('LOSS with two failed after a clean repair', desc, g2.stderr[-300:]); problems += 1
    lost1 += r1 == 'lost'; lost2 += r2 == 'lost'
    if r1 == 'lost' and os.environ.get('VERBOSE') == '1':  # s26r
        print('lost', desc, g1.stderr.decode(errors='replace')[-400:], flush=True)
    if problems and os.environ.get('KEEP') and not kept: kept = True; print('kept image', os.environ['KEEP'])
print('codes', codes, 'unit', unit, 'WP', os.environ.get('WP', 'rmw'), trials, 'trials', killed, 'killed',
      lost1, 'lost after repair', lost2, 'lost with two failed', problems, 'PROBLEMS')
shutil.rmtree(D, ignore_errors=True)
