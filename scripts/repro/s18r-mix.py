#!/usr/bin/env python3
# s18r: random mix on one store through the CLI, every acknowledged byte checked after each step.
# Ops: write (odd offsets/lengths), put, rm, fail, rebuild (in place or --to), online, scrub [--repair],
# bit flips in OSS object files, flush, delayed start/end (WP=delayed), each maybe killed -9.
# usage: EXARAID=... s18r-mix.py DIR CODE UNIT WP SEED [STEPS] [KILLP]
#   CODE: raid5:N | raid6:N | rs:K:M | dcode:P:N | xcode:P:N | ... (N = OSS count)
import os, random, subprocess, sys, time, signal, glob, re
E = os.environ['EXARAID']
D, code, unit, wp, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
steps = int(sys.argv[6]) if len(sys.argv) > 6 else 60
killp = float(sys.argv[7]) if len(sys.argv) > 7 else 0.2
FLIPS = os.environ.get('FLIPS', '1') == '1'
rnd = random.Random(seed); subprocess.run(['rm', '-rf', D]); os.makedirs(D); S = D + '/s'
c = code.split(':')
if c[0] == 'rs': n, extra, tol = int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]], int(c[2])
elif c[0] in ('raid5', 'raid6'): n, extra, tol = int(c[1]), [], 1 if c[0] == 'raid5' else 2
else: n, extra, tol = int(c[2]), ['--p', c[1]], 2
log = []
def run(args, inp=None, k=False):
    p = subprocess.Popen(([] if k else ['timeout', '120']) + [E, 'store'] + args,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if k:
        try: p.stdin.write(inp or b''); p.stdin.close()
        except BrokenPipeError: pass
        time.sleep(rnd.random() * 0.08); p.send_signal(signal.SIGKILL); p.wait()
        return None
    out, err = p.communicate(inp); r = p.returncode
    if r == 124 or r >= 100 or r < 0 or b'panicked' in err:
        print('PROBLEM hang/panic', args, r, err[-600:]); sys.exit(1)
    return (r, out, err)
r = run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', wp,
         '--window-timeout-ms', os.environ.get('WTO', '600000')] + extra
        + (['--unprotected-max-bytes', os.environ['UMAX']] if os.environ.get('UMAX') else []))
assert r[0] == 0, r
model = {}      # name -> list of candidates (bytearray, or None = absent)
failed = set(); problems = 0; lostnamed = set(); windows = {}  # name -> token
newdirs = 0
def check(tag):
    global problems
    for name, cands in list(model.items()):
        r = run(['get', S, name])
        if r[0] == 0:
            got = r[1]
            m = [c for c in cands if c is not None and bytes(c) == got]
            mix = not m and any(c is not None and len(c) == len(got) for c in cands) and all(
                any(((c[i] if i < len(c) else 0) if c is not None else 0) == got[i] for c in cands) for i in range(len(got)))
            # (a killed first write of a new name reads new bytes with zeros where its pieces did not land: documented)
            if m and len(got) > 1:
                # a random range through `read` (partial elements, odd offsets) must be the same bytes
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
                      'differ', len(d), 'first', d[:3], 'zeros', sum(1 for i in d if got[i] == 0))
                model[name] = [bytearray(got)]
        elif b'no file' in r[2].lower() or b'no such file' in r[2].lower() or b'not found' in r[2].lower():
            if None in cands: model[name] = [None]
            else: problems += 1; print('GONE', tag, name, r[2][-300:])
        elif b'lost' in r[2].lower():
            if name not in lostnamed or os.environ.get('V'): print('  lost named', tag, name, r[2][-250:])
            lostnamed.add(name)
        else:
            problems += 1; print('GET FAILED', tag, name, r[2][-400:])
def flip():
    files = [f for f in glob.glob(S + '/oss-*/objects/*') + glob.glob(S + '/new-*/objects/*') if os.path.getsize(f) > 0]
    if not files: return 'none'
    f = rnd.choice(files); sz = os.path.getsize(f); off = rnd.randrange(sz)
    with open(f, 'r+b') as h:
        h.seek(off); b = h.read(1); h.seek(off); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
    return '%s@%d' % (f[len(S):], off)
maxoff = int(os.environ.get('MAXOFF', str(unit * 12)))
maxlen = int(os.environ.get('MAXLEN', str(unit * 3 + 777)))
for i in range(steps):
    ops = ['write'] * 6 + ['put', 'rm', 'fail', 'online', 'rebuild', 'scrub', 'flush'] + (['flip'] if FLIPS else [])
    if wp == 'delayed': ops += ['start'] * 2 + ['end'] * 2
    op = rnd.choice(ops)
    name = 'f%d' % rnd.randrange(4); k = rnd.random() < killp
    r = 'x'; info = ''
    if op == 'write':
        off = rnd.randrange(0, maxoff); data = os.urandom(rnd.randrange(1, maxlen))
        def apply(c):
            d = bytearray(c or b'')
            if len(d) < off: d.extend(b'\0' * (off - len(d)))
            d[off:off + len(data)] = data; return d
        cands = model.get(name, [None]); new = [apply(c) for c in cands]
        r = run(['write', S, name, '--offset', str(off)], data, k); info = '%d+%d' % (off, len(data))
        if r is None: model[name] = cands + new
        elif r[0] == 0: model[name] = new
        else:
            # a refused write may have landed in part (each byte old or new, as a killed one)
            print('  write refused', name, r[2][-300:]); model[name] = cands + new
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
        if len(failed) < tol:
            o = rnd.randrange(n); r = run(['fail', S, '--oss', str(o)], None, k)
            if r is None: r = run(['status', S])
            elif r[0] == 0: failed.add(o)
            info = str(o)
    elif op == 'online' and failed:
        o = rnd.choice(sorted(failed)); r = run(['online', S, '--oss', str(o)], None, k)
        if r is None: r = run(['online', S, '--oss', str(o)])
        if r[0] == 0: failed.discard(o)
        else: print('  online', o, r[0], r[2][-250:])
        info = str(o)
    elif op == 'rebuild' and failed:
        o = rnd.choice(sorted(failed)); to = []
        if rnd.random() < 0.5:
            newdirs += 1; to = ['--to', S + '/new-%d' % newdirs]
        r = run(['rebuild', S, '--oss', str(o)] + to, None, k)
        if r is None: r = run(['rebuild', S, '--oss', str(o)] + to)
        if r[0] == 0: failed.discard(o)
        else: print('  rebuild', o, r[0], r[2][-250:])
        info = str(o) + ' '.join(to)
    elif op == 'scrub':
        rep = rnd.random() < 0.6
        r = run(['scrub', S] + (['--repair'] if rep else []), None, k)
        if r is not None: info = 'rc%d %s' % (r[0], r[1][-200:].decode(errors='replace').replace('\n', ' | '))
    elif op == 'flush':
        r = run(['flush', S], None, k)
    elif op == 'flip':
        info = flip()
    elif op == 'start' and name not in windows:
        r = run(['delayed', 'start', S, name])
        if r[0] == 0:
            windows[name] = r[1].decode().strip()
            model[name] = [c if c is not None else bytearray() for c in model.get(name, [None])]
        else: print('  start refused', name, r[2][-200:])
    elif op == 'end' and windows:
        nm = rnd.choice(sorted(windows)); r = run(['delayed', 'end', S, windows[nm]], None, k)
        if r is None: r = run(['delayed', 'end', S, windows[nm]])
        if r[0] == 0: windows.pop(nm)
        elif b'unknown' in r[2].lower() or b'no open' in r[2].lower(): windows.pop(nm); print('  end: gone', r[2][-200:])
        else: print('  end', nm, r[0], r[2][-300:]); windows.pop(nm) if b'lost' in r[2].lower() else None
    if os.environ.get('TRACE') or (r is not None and r != 'x' and r[0] not in (0,) and op not in ('scrub',)):
        print('TRACE', i, op, name, info, 'KILLED' if k else '', '' if r is None or r == 'x' else (r[0], r[2][-int(os.environ.get('ERRLEN','200')):]),
              'failed', sorted(failed))
    elif os.environ.get('TRACE2'): print('TRACE', i, op, name, info, 'KILLED' if k else '')
    check('step%d-%s' % (i, op))
    st = run(['status', S, '--json'])
    if st[0] == 0:
        import json
        failed = set(o['index'] for o in json.loads(st[1])['oss'] if o.get('failed_on_record'))
for nm, t in list(windows.items()): r = run(['delayed', 'end', S, t]); print('final end', nm, r[0], r[2][-200:])
for o in sorted(failed): r = run(['rebuild', S, '--oss', str(o)]); print('final rebuild', o, r[0], r[2][-200:])
r = run(['scrub', S, '--repair']); print('scrub --repair', r[0], r[1][-300:].decode(errors='replace'))
check('final')
r = run(['scrub', S]); print('final scrub', r[0], r[1][-200:].decode(errors='replace'))
if r[0] != 0: print('PROBLEM scrub not clean')
for o in rnd.sample(range(n), tol): run(['fail', S, '--oss', str(o)])
check('final-degraded')
print('lost named', sorted(lostnamed), 'problems', problems)
