#!/usr/bin/env python3
# s25r sweep: a crash, then `fail` + `rebuild` (in place or `--to`), then a check that the rebuilt OSS holds the
# right bytes. Per trial: init (2-parity code); put f; optional acknowledged write A (ACK=1); write B killed at
# a random kill point (write-torn-block:n in plan order, or journal-record:n); an open (`status`); `fail X`
# (X random); optional acknowledged write C while X is failed (DURING=1); `rebuild X` (in place or `--to` a
# new dir, REBUILD_TO=1/0/random), itself killed at rebuild-element:j (or rebuild-begun / rebuild-switched) on
# some trials and run again; then `get` (every byte the last acknowledged write's, or B's where B is the last
# writer over it, or LOST named); then fail two OSSs other than X and `get` again (the rebuilt OSS's columns now
# carry the read: a wrong rebuild shows as wrong bytes here).
# Faults: B's torn block (one OSS) and X: two, on codes with two parities; at the second get only the two
# failed OSSs (the crash was settled by the first open). All within the tolerance.
# MISSING=1: X's directory is moved away before the first open after the crash (recovery waits: `status`,
#      `get`), then `fail X` and `rebuild X --to NEWDIR`.
# ONLINE=1: `online X` (the directory put back first with MISSING=1) instead of the rebuild, killed on some
#      trials at online-stripe / online-back / online-back-range / journal-record and run again.
# VERBOSE=1 prints every LOST read.
# Env: EXARAID (binary), WP (rmw|wcl|delayed|random), CODES (comma list, default raid6:6,rs:4:2),
#      ACK, DURING, REBUILD_TO, KEEP=DIR (keep the image of the first problem trial before its rebuild).
# usage: EXARAID=/tmp/s25r-bin s25r-crash-rebuild.py DIR UNIT TRIALS SEED
# example: EXARAID=/tmp/s25r-bin WP=random ACK=1 DURING=1 python3 scripts/repro/s25r-crash-rebuild.py /tmp/s25r-t 4096 60 1
import os, random, subprocess, sys, glob, shutil
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
    if b'lost' in g.stderr.lower():
        if os.environ.get('VERBOSE') == '1': print('lost', what, desc, g.stderr[-500:])
        return 'lost'
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
    torn = sorted(set(l.split('/oss-')[1].split('/')[0].split()[0] for l in w.stderr.decode(errors='replace').split('\n') if '/oss-' in l and 'torn' in l))
    x = rnd.randrange(n)
    if os.environ.get('MISSING') == '1':
        # OSS X's directory gone before the open (a dropped mount): recovery waits; `status` reports it;
        # then `fail X` lets recovery run degraded (crash + X: two faults), and `rebuild --to` replaces it.
        os.rename(S + '/oss-%d' % x, D + '/away')
        st = run(['status', S])
        if st.returncode != 0 or b'RECOVERY PENDING' not in st.stdout + st.stderr:
            if w.returncode == -9: print('STATUS while missing rc %d' % st.returncode, st.stdout[-200:], st.stderr[-300:])
        gm = run(['get', S, 'f'])
        if gm.returncode == 0:
            r = check(gm, old, ws, 'trial %d missing %d' % (t, x), 'while missing')
    else:
        run(['status', S])
    desc = 'trial %d %s %s unit %d size %d writes %s kill %s%s torn %s fail %d' % (
        t, code, wp, unit, size, [(a, len(b), ack) for a, b, ack in ws], k, ' (END)' if win else '', torn, x)
    if os.environ.get('MISSING') != '1':
        g0 = run(['get', S, 'f']); r0 = check(g0, old, ws, desc, 'before fail')
    else: r0 = 'skip'
    f = run(['fail', S, '--oss', str(x)])
    if os.environ.get('MISSING') == '1':
        g0 = run(['get', S, 'f']); r0 = check(g0, old, ws, desc, 'failed after missing')
    if f.returncode != 0: print('fail refused', desc, f.stderr[-200:]); continue
    if os.environ.get('DURING') == '1' and rnd.random() < 0.7:
        o2 = rnd.randrange(size); d2 = drnd.randbytes(rnd.randrange(1, unit * 3))
        wc = run(['write', S, 'f', '--offset', str(o2)], d2)
        if wc.returncode == 0: ws.append((o2, d2, True)); desc += ' C %d+%d' % (o2, len(d2))
        else: desc += ' C refused'
    to = os.environ.get('REBUILD_TO', 'random')
    to = (rnd.random() < 0.5) if to == 'random' else to == '1'
    if os.environ.get('MISSING') == '1': to = True
    args = ['rebuild', S, '--oss', str(x)] + (['--to', D + '/new'] if to else [])
    if os.environ.get('ONLINE') == '1':
        # the disk comes back: `online X` takes the mistaken fail back instead of a rebuild
        if os.environ.get('MISSING') == '1': os.rename(D + '/away', S + '/oss-%d' % x)
        args = ['online', S, '--oss', str(x)]; desc += ' (online)'
    if os.environ.get('KEEP') and not kept:
        shutil.rmtree(os.environ['KEEP'], ignore_errors=True); shutil.copytree(D, os.environ['KEEP'], symlinks=True)
    r = None
    if rnd.random() < 0.5:
        rk = rnd.choice(['rebuild-element:%d' % rnd.randrange(1, 8), 'rebuild-begun:1', 'rebuild-switched:1']
                        if os.environ.get('ONLINE') != '1' else
                        ['online-stripe:%d' % rnd.randrange(1, 4), 'online-back:1', 'online-back-range:1', 'journal-record:%d' % rnd.randrange(1, 4)])
        r = run(args, b'', {'EXARAID_KILL_AT': rk}); desc += ' rebuild killed at %s (rc %d)' % (rk, r.returncode)
        if r.returncode != -9: desc += ' (not reached)'
    if r is None or r.returncode == -9: r = run(args)
    desc += ' rebuild%s rc %d' % (' --to' if to else '', r.returncode)
    if r.returncode != 0:
        print('REBUILD FAILED', desc, r.stderr[-400:]); problems += 1; continue
    g1 = run(['get', S, 'f']); r1 = check(g1, old, ws, desc, 'after rebuild')
    if r0 == 'ok' and r1 == 'lost': print('LOSS after rebuild (read before)', desc, g1.stderr[-300:]); problems += 1
    others = [i for i in range(n) if i != x]; rnd.shuffle(others)
    for y in others[:2]: run(['fail', S, '--oss', str(y)])
    g2 = run(['get', S, 'f']); r2 = check(g2, old, ws, desc + ' then fail %s' % others[:2], 'two others failed')
    if r1 == 'ok' and r2 == 'lost': print('LOSS with two others failed (read before)', desc, g2.stderr[-300:]); problems += 1
    lost1 += r1 == 'lost'; lost2 += r2 == 'lost'
    if problems and os.environ.get('KEEP') and not kept: kept = True; print('kept image', os.environ['KEEP'])
print('codes', codes, 'unit', unit, 'WP', os.environ.get('WP', 'rmw'), trials, 'trials', killed, 'killed',
      lost1, 'lost after rebuild', lost2, 'lost with two failed', problems, 'PROBLEMS')
shutil.rmtree(D, ignore_errors=True)
