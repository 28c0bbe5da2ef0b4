#!/usr/bin/env python3
# s22r: s20r-mix.py with the OSS of a damaged file known without opening the store (s20r's first
# `status` to map paths ran the crash recovery BEFORE the "flip before recovery", and could delete the
# file it had picked); a picked file gone is skipped. Otherwise as below.
# Env NFILES: how many file names (4).
# s20r: random mix on one store through the release CLI; every acknowledged byte checked after each step.
# Differs from s18r-mix.py: kills land at named kill points (EXARAID_KILL_AT=<point>:<n>, a point the
# op passes, n random), so they fall INSIDE writes, settles, rebuilds, onlines, removals and the next
# open's recovery (a second kill chained into the recovery of the first); an OSS directory taken away
# (renamed) for one command and put back ('away'); zone files cut short ('trunc'); bit flips.
# usage: EXARAID=... s20r-mix.py DIR CODE UNIT WP SEED [STEPS] [KILLP]
#   CODE: raid5:N | raid6:N | rs:K:M | dcode:P:N | xcode:P:N | hdp:P:N | ... (N = OSS count)
# Env: FLIPS=0 (no flips), TRUNC=0 (no truncation), AWAY=0, TRACE=1, WTO, UMAX, MAXOFF, MAXLEN.
import os, random, subprocess, sys, signal, glob, json
E = os.environ['EXARAID']
D, code, unit, wp, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
steps = int(sys.argv[6]) if len(sys.argv) > 6 else 60
killp = float(sys.argv[7]) if len(sys.argv) > 7 else 0.3
FLIPS = os.environ.get('FLIPS', '1') == '1'
TRUNC = os.environ.get('TRUNC', '1') == '1'
AWAY = os.environ.get('AWAY', '1') == '1'
rnd = random.Random(seed); subprocess.run(['rm', '-rf', D]); os.makedirs(D); S = D + '/s'
c = code.split(':')
if c[0] == 'rs': n, extra, tol = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]], int(c[2])
elif c[0] in ('raid5', 'raid6'): n, extra, tol = int(c[1]), [], 1 if c[0] == 'raid5' else 2
else: n, extra, tol = int(c[2]), ['--p', c[1]], 2
POINTS = {
    'write': ['write-torn-block', 'journal-record', 'extents-synced', 'settle-element', 'gap-fill-torn'],
    'put': ['write-torn-block', 'journal-record', 'remove-zone', 'extents-synced'],
    'rm': ['remove-zone', 'journal-record', 'settle-element', 'settle-synced'],
    'rebuild': ['rebuild-begun', 'rebuild-element', 'rebuild-switched', 'settle-element', 'journal-record'],
    'online': ['online-stripe', 'online-back', 'online-back-range', 'settle-element', 'journal-record'],
    'flush': ['settle-begun', 'settle-element', 'settle-stripe', 'settle-synced', 'settle-torn-block'],
    'end': ['settle-element', 'write-torn-block', 'journal-record', 'settle-synced'],
    'scrub': ['write-torn-block', 'journal-record'],
    'fail': ['journal-record', 'settle-element'],
    'open': ['journal-tail', 'journal-cut-write', 'settle-begun', 'settle-element', 'settle-torn-block',
             'settle-synced', 'journal-record'],
}
stats = {'killed': 0, 'kills_armed': 0}
def run(args, inp=None, killat=None, quiet=False):
    env = dict(os.environ)
    for v in ('EXARAID_KILL_AT', 'EXARAID_KILL_IN_PLAN_ORDER', 'EXARAID_KILL_TEAR_EVERY_OSS'): env.pop(v, None)
    if killat:
        pt = killat.split('+')
        env['EXARAID_KILL_AT'] = pt[0]
        if 'order' in pt: env['EXARAID_KILL_IN_PLAN_ORDER'] = '1'
        if 'tear' in pt: env['EXARAID_KILL_TEAR_EVERY_OSS'] = '1'
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp or b'', env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    r = p.returncode
    if killat and r == -9 or r == 137:
        stats['killed'] += 1; return None
    if r == 124 or r >= 100 or r < 0 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, killat, r, p.stderr[-800:]); sys.exit(1)
    return (r, p.stdout, p.stderr)
def arm(op):
    if rnd.random() >= killp: return None
    stats['kills_armed'] += 1
    pts = POINTS[op] + (POINTS['open'] if rnd.random() < 0.2 else [])
    p = rnd.choice(pts); k = '%s:%d' % (p, rnd.choice([1, 1, 2, 2, 3, 4, 6, 9]))
    if p == 'write-torn-block' and rnd.random() < 0.5:
        k += '+order' + ('+tear' if rnd.random() < 0.6 else '')
    return k
r = run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp,
         '--window-timeout-ms', os.environ.get('WTO', '600000')] + extra
        + (['--unprotected-max-bytes', os.environ['UMAX']] if os.environ.get('UMAX') else []))
assert r[0] == 0, r
model = {}      # name -> list of candidates (bytearray, or None = absent)
failed = set(); problems = 0; lostnamed = set(); windows = {}
newdirs = 0; damage = []
damaged = set()  # OSSs flipped/cut since the last clean scrub --repair: kept with `failed` within the tolerance
def budget(o=None):
    return len(failed | damaged | ({o} if o is not None else set())) <= tol
def after_kill():
    # the next open recovers; sometimes kill that recovery too (chained), then open clean;
    # with KILLFLIP=1, damage (within the budget) lands between the crash and the recovery first
    if os.environ.get('KILLFLIP') == '1' and rnd.random() < 0.6:
        print('  flip before recovery', flip() if rnd.random() < 0.8 else trunc())
    if rnd.random() < 0.4:
        k2 = '%s:%d' % (rnd.choice(POINTS['open']), rnd.randrange(1, 5))
        r = run(['status', S], None, k2)
        print('  chained kill', k2, 'killed' if r is None else 'not reached')
def check(tag):
    global problems
    for name, cands in list(model.items()):
        r = run(['get', S, name])
        if r[0] == 0:
            got = r[1]
            m = [c for c in cands if c is not None and bytes(c) == got]
            mix = not m and any(c is not None and len(c) == len(got) for c in cands) and all(
                any(((c[i] if i < len(c) else 0) if c is not None else 0) == got[i] for c in cands) for i in range(len(got)))
            if m and len(got) > 1:
                o = rnd.randrange(len(got) - 1); l = rnd.randrange(1, len(got) - o + 1)
                rr = run(['read', S, name, '--offset', str(o), '--length', str(l)])
                if rr[0] != 0 or rr[1] != got[o:o + l]:
                    problems += 1; print('READ DIFFERS from get', tag, name, o, l, rr[0], rr[2][-300:])
            if m: model[name] = [m[0]]
            elif mix or (got == b'' and len(cands) > 1):
                print('  mixed old/new after a kill (allowed)', tag, name); model[name] = [bytearray(got)]
            else:
                problems += 1; big = max([c for c in cands if c is not None] or [b''], key=len)
                d = [i for i in range(min(len(got), len(big))) if got[i] != big[i]]
                print('WRONG BYTES', tag, name, len(got), [None if c is None else len(c) for c in cands],
                      'differ', len(d), 'first', d[:3], 'zeros', sum(1 for i in d if got[i] == 0), 'damage', damage[-4:])
                model[name] = [bytearray(got)]
        elif b'no file' in r[2].lower() or b'no such file' in r[2].lower() or b'not found' in r[2].lower():
            if None in cands: model[name] = [None]
            else: problems += 1; print('GONE', tag, name, r[2][-300:])
        elif b'lost' in r[2].lower():
            if budget() and not os.environ.get('PAST') and b'while a delayed window was open' not in r[2]:
                print('LOST WITHIN TOLERANCE', tag, name, sorted(failed), sorted(damaged), damage[-4:], r[2][-300:])
            if name not in lostnamed or os.environ.get('V'): print('  lost named', tag, name, r[2][-250:])
            lostnamed.add(name)
        else:
            problems += 1; print('GET FAILED', tag, name, r[2][-400:])
def objfiles():
    # a delayed window's bytes have no parity until END (by design): leave open windows' cache zones alone
    return [f for f in _objfiles() if not (windows and f.endswith('.cache'))]
def _objfiles():
    return [f for f in glob.glob(S + '/oss-*/objects/*') + glob.glob(S + '/new-*/objects/*') if os.path.getsize(f) > 0]
osspaths = {}
def ossof(f):
    d = os.path.dirname(os.path.dirname(f))
    b = os.path.basename(d)
    if d not in osspaths and b.startswith('oss-'): return int(b[4:])
    return osspaths.get(d, -1)
def flip():
    files = objfiles()
    if not files: return 'none'
    f = rnd.choice(files); o = ossof(f)
    if not budget(o) and not os.environ.get('PAST'): return 'skip'
    if not os.path.exists(f) or os.path.getsize(f) == 0: return 'none'
    damaged.add(o); sz = os.path.getsize(f); off = rnd.randrange(sz)
    with open(f, 'r+b') as h:
        h.seek(off); b = h.read(1); h.seek(off); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
    damage.append('flip %s@%d' % (f[len(S):], off)); return damage[-1]
def trunc():
    files = objfiles()
    if not files: return 'none'
    f = rnd.choice(files); o = ossof(f)
    if not budget(o) and not os.environ.get('PAST'): return 'skip'
    if not os.path.exists(f) or os.path.getsize(f) == 0: return 'none'
    damaged.add(o); sz = os.path.getsize(f)
    new = rnd.choice([sz - 1, (sz - 1) // 4096 * 4096, rnd.randrange(sz)])
    os.truncate(f, max(0, new)); damage.append('trunc %s %d->%d' % (f[len(S):], sz, new)); return damage[-1]
def ossdir(o):
    st = run(['status', S, '--json'])
    if st[0] != 0: return S + '/oss-%d' % o
    for x in json.loads(st[1])['oss']:
        if x['index'] == o: return x['path']
    return S + '/oss-%d' % o
maxoff = int(os.environ.get('MAXOFF', str(unit * 12)))
maxlen = int(os.environ.get('MAXLEN', str(unit * 3 + 777)))
def do_write(name, k):
    off = rnd.randrange(0, maxoff); data = os.urandom(rnd.randrange(1, maxlen))
    def apply(c):
        d = bytearray(c or b'')
        if len(d) < off: d.extend(b'\0' * (off - len(d)))
        d[off:off + len(data)] = data; return d
    cands = model.get(name, [None]); new = [apply(c) for c in cands]
    r = run(['write', S, name, '--offset', str(off)], data, k)
    if r is None: model[name] = cands + new
    elif r[0] == 0: model[name] = new
    else:
        print('  write refused', name, r[2][-300:]); model[name] = cands + new
    return r, '%d+%d' % (off, len(data))
for i in range(steps):
    ops = ['write'] * 6 + ['put', 'rm', 'fail', 'online', 'rebuild', 'scrub', 'flush']
    if FLIPS: ops.append('flip')
    if TRUNC: ops.append('trunc')
    if AWAY: ops += ['away'] * 2
    if wp == 'delayed': ops += ['start'] * 2 + ['end'] * 2
    op = rnd.choice(ops)
    name = 'f%d' % rnd.randrange(int(os.environ.get('NFILES', '4')))
    k = arm(op) if op in POINTS else None
    r = 'x'; info = ''
    if op == 'write':
        r, info = do_write(name, k)
    elif op == 'put':
        data = os.urandom(rnd.randrange(0, maxlen * 2))
        r = run(['put', S, name], data, k)
        if r is None: model[name] = model.get(name, [None]) + [bytearray(data)]
        elif r[0] == 0: model[name] = [bytearray(data)]
        elif name in windows and b'window' in r[2]: pass
        else: print('  put refused', name, r[2][-300:])
    elif op == 'rm' and name in model:
        r = run(['rm', S, name], None, k)
        if r is None: model[name] = model[name] + [None]
        elif r[0] == 0: model[name] = [None]
        elif name in windows and b'window' in r[2]: pass
        else: print('  rm refused', name, r[2][-300:])
    elif op == 'fail':
        o = rnd.randrange(n)
        if len(failed) < tol and (budget(o) or os.environ.get('PAST')):
            r = run(['fail', S, '--oss', str(o)], None, k)
            if r is None: after_kill(); r = run(['status', S])
            elif r[0] == 0: failed.add(o)
            info = str(o)
    elif op == 'online' and failed:
        o = rnd.choice(sorted(failed)); r = run(['online', S, '--oss', str(o)], None, k)
        if r is None: after_kill(); r = run(['online', S, '--oss', str(o)])
        if r[0] == 0: failed.discard(o)
        else: print('  online', o, r[0], r[2][-250:])
        info = str(o)
    elif op == 'rebuild' and failed:
        o = rnd.choice(sorted(failed)); to = []
        if rnd.random() < 0.5:
            newdirs += 1; to = ['--to', S + '/new-%d' % newdirs]
        r = run(['rebuild', S, '--oss', str(o)] + to, None, k)
        if r is None: after_kill(); r = run(['rebuild', S, '--oss', str(o)] + to)
        if r[0] == 0: failed.discard(o)
        else: print('  rebuild', o, r[0], r[2][-250:])
        info = str(o) + ' '.join(to)
    elif op == 'scrub':
        rep = rnd.random() < 0.6
        r = run(['scrub', S] + (['--repair'] if rep else []), None, k)
        if r is not None and rep and r[0] == 0: damaged.clear()
        if r is not None: info = 'rc%d %s' % (r[0], r[1][-200:].decode(errors='replace').replace('\n', ' | '))
    elif op == 'flush':
        r = run(['flush', S], None, k)
    elif op == 'flip':
        info = flip()
    elif op == 'trunc':
        info = trunc()
    elif op == 'away':
        cand = [o for o in range(n) if o not in failed and (budget(o) or os.environ.get('PAST'))]
        if cand:
            o = rnd.choice(cand); p = ossdir(o)
            if os.path.isdir(p):
                os.rename(p, p + '.away'); sub = rnd.choice(['write', 'write', 'get', 'flush', 'status', 'put', 'rm', 'scrub', 'end'])
                if sub == 'write': r, info = do_write(name, None)
                elif sub == 'get': r = run(['get', S, name])
                elif sub == 'put':
                    data = os.urandom(rnd.randrange(0, maxlen * 2)); r = run(['put', S, name], data)
                    if r[0] == 0: model[name] = [bytearray(data)]
                    else: model[name] = model.get(name, [None]) + [bytearray(data)]
                elif sub == 'rm':
                    r = run(['rm', S, name])
                    if r[0] == 0: model[name] = [None]
                    elif name in model: model[name] = model[name] + [None]
                elif sub == 'end':
                    if windows:
                        nm = rnd.choice(sorted(windows)); r = run(['delayed', 'end', S, windows[nm]])
                        if r[0] == 0 or b'lost' in r[2].lower(): windows.pop(nm)
                    else: r = run(['status', S])
                else: r = run([sub, S])
                os.rename(p + '.away', p); info = 'oss %d away during %s %s' % (o, sub, info)
                damage.append(info)
    elif op == 'start' and name not in windows:
        r = run(['delayed', 'start', S, name])
        if r[0] == 0:
            windows[name] = r[1].decode().strip()
            model[name] = [c if c is not None else bytearray() for c in model.get(name, [None])]
        else: print('  start refused', name, r[2][-200:])
    elif op == 'end' and windows:
        nm = rnd.choice(sorted(windows)); r = run(['delayed', 'end', S, windows[nm]], None, k)
        if r is None: after_kill(); r = run(['delayed', 'end', S, windows[nm]])
        if r[0] == 0: windows.pop(nm)
        elif b'unknown' in r[2].lower() or b'no open' in r[2].lower(): windows.pop(nm); print('  end: gone', r[2][-200:])
        else: print('  end', nm, r[0], r[2][-300:]); windows.pop(nm) if b'lost' in r[2].lower() else None
    if r is None and op not in ('fail', 'online', 'rebuild', 'end'): after_kill()
    if os.environ.get('TRACE') or (r is not None and r != 'x' and r[0] not in (0,) and op not in ('scrub',)):
        print('TRACE', i, op, name, info, 'KILL@' + k if k else '', 'KILLED' if r is None else '',
              '' if r is None or r == 'x' else (r[0], r[2][-int(os.environ.get('ERRLEN', '200')):]), 'failed', sorted(failed))
    check('step%d-%s' % (i, op))
    st = run(['status', S, '--json'])
    if st[0] == 0:
        failed = set(o['index'] for o in json.loads(st[1])['oss'] if o.get('failed_on_record'))
        osspaths.clear()
        for x in json.loads(st[1])['oss']: osspaths[x['path'].rstrip('/')] = x['index']
for nm, t in list(windows.items()): r = run(['delayed', 'end', S, t]); print('final end', nm, r[0], r[2][-200:])
for o in sorted(failed): r = run(['rebuild', S, '--oss', str(o)]); print('final rebuild', o, r[0], r[2][-200:])
r = run(['scrub', S, '--repair']); print('scrub --repair', r[0], r[1][-300:].decode(errors='replace'))
check('final')
r = run(['scrub', S]); print('final scrub', r[0], r[1][-200:].decode(errors='replace'))
for o in rnd.sample(range(n), tol): run(['fail', S, '--oss', str(o)])
check('final-degraded')
print('lost named', sorted(lostnamed), 'problems', problems, stats)
