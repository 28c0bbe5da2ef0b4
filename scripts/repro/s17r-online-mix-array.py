#!/usr/bin/env python3
# s17r (copy of s16r2-online-mix.py for array codes: CODE = name:p:oss, tolerance 2, e.g. dcode:5:7)
# s16r2: fail/online/rebuild mixed with random writes (and optional kill -9 of online/rebuild/write at a random
# delay), m OSSs failed at once; every acked byte checked after each step. usage:
#   EXARAID=... s16r2-online-mix.py DIR CODE(rs|raid6) WP SEED [KILL=0|1] [STEPS]
import os, random, subprocess, sys, time, signal
E = os.environ['EXARAID']; D, code, wp, seed = sys.argv[1:5]; kill = len(sys.argv) > 5 and sys.argv[5] == '1'
steps = int(sys.argv[6]) if len(sys.argv) > 6 else 60
rnd = random.Random(int(seed)); subprocess.run(['rm', '-rf', D]); os.makedirs(D); S = D + '/s'
cname, cp, cn = code.split(':'); code = cname
n, extra, tol = int(cn), ['--p', cp], 2
def run(args, inp=None, k=False):
    p = subprocess.Popen(([] if k else ['timeout', '60']) + [E, 'store'] + args,  # killed runs: no timeout wrapper, SIGKILL must hit exaraid
         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if k:
        try: p.stdin.write(inp or b''); p.stdin.close()
        except BrokenPipeError: pass
        time.sleep(rnd.random() * 0.05); p.send_signal(signal.SIGKILL); p.wait(); return None
    out, err = p.communicate(inp); r = p.returncode
    if r == 124 or r >= 100 or r < 0: print('PROBLEM hang/panic', args, r, err[-400:]); sys.exit(1)
    return (r, out, err)
r = run(['init', S, '--oss', str(n), '--code', code, '--stripe-unit', '4096', '--write-path', wp] + extra); assert r[0] == 0, r
damaged = {}; model = {}; unsure = {}; failed = set(); problems = 0; lostnamed = set()
def check(tag):
    global problems
    for name, cands in model.items():
        r = run(['get', S, name])
        if r[0] == 0:
            got = r[1]
            m = [c for c in cands if bytes(c) == got]
            # a killed write's bytes are each old or new (documented): accept a per-byte mix of the candidates
            mix = not m and any(len(c) == len(got) for c in cands) and all(
                any((c[i] if i < len(c) else 0) == got[i] for c in cands) for i in range(len(got)))  # past a candidate's end: a hole (zeros)
            if m: model[name] = [m[0]]
            elif mix or (got == b'' and len(cands) > 1): print('  mixed old/new after a kill (allowed)', tag, name); model[name] = [bytearray(got)]
            else:
                problems += 1; big = max(cands, key=len)
                d = [i for i in range(min(len(got), len(big))) if got[i] != big[i]]
                print('WRONG BYTES', tag, name, len(got), [len(c) for c in cands], 'vs longest:', len(d), 'differ, first', d[:3], 'zeros among them', sum(1 for i in d if got[i] == 0))
        elif b'lost' in r[2].lower(): lostnamed.add(name)
        else: problems += 1; print('GET FAILED', tag, name, r[2][-(int(os.environ.get('ERRLEN', '300'))):])
for i in range(steps):
    op = rnd.choice(['write'] * 4 + ['fail', 'online', 'rebuild'] + (['dmg', 'fix'] if os.environ.get('LABELDMG') else []))
    name = 'f%d' % rnd.randrange(3); k = kill and rnd.random() < 0.2
    if op == 'write':
        off = rnd.randrange(0, 30000); data = os.urandom(rnd.randrange(1, 12000))
        def apply(c):
            d = bytearray(c)
            if len(d) < off: d.extend(b'\0' * (off - len(d)))
            d[off:off + len(data)] = data; return d
        cands = model.get(name, [None])
        new = [apply(c or b'') for c in cands]
        r = run(['write', S, name, '--offset', str(off)], data, k)
        if r is None: model[name] = ([c for c in cands if c is not None] or [bytearray()]) + new   # killed: old or new (a new file: absent/empty or new)
        elif r[0] == 0: model[name] = new
        elif b'lost' in r[2].lower(): print('  write lost msg', r[2][:200])
    elif op == 'fail':
        if len(failed) < tol:
            o = rnd.randrange(n); r = run(['fail', S, '--oss', str(o)])
            if r[0] == 0: failed.add(o)
    elif op == 'online' and failed:
        o = rnd.choice(sorted(failed)); r = run(['online', S, '--oss', str(o)], None, k)
        if r is None: r = run(['online', S, '--oss', str(o)])
        if r[0] == 0: failed.discard(o)
        else: print('  online', o, r[0], r[2][:250])
    elif op == 'rebuild' and failed:
        o = rnd.choice(sorted(failed)); r = run(['rebuild', S, '--oss', str(o)], None, k)
        if r is None: r = run(['rebuild', S, '--oss', str(o)])
        if r[0] == 0: failed.discard(o)
        else: print('  rebuild', o, r[0], r[2][:250])
    elif op == 'dmg' and not damaged:
        o = rnd.randrange(n); p = '%s/oss-%d/exaraid-oss.json' % (S, o)
        if os.path.exists(p): damaged[o] = open(p, 'rb').read(); open(p, 'wb').write(b'garbage')
    elif op == 'fix' and damaged:
        for o, b in list(damaged.items()): open('%s/oss-%d/exaraid-oss.json' % (S, o), 'wb').write(b); damaged.pop(o)
    if os.environ.get('TRACE'): print('TRACE', i, op, name, 'killed' if k else '', r if r is None else (r[0], r[2][:160]), {n: [len(c) for c in v] for n, v in model.items()}, 'failed', sorted(failed), 'dmg', list(damaged))
    check('step%d-%s' % (i, op))
for o, b in list(damaged.items()): open('%s/oss-%d/exaraid-oss.json' % (S, o), 'wb').write(b)
r = run(['status', S]); print(r[1].decode()[-600:])
for o in range(n): run(['online', S, '--oss', str(o)]); run(['rebuild', S, '--oss', str(o)])
check('final')
r = run(['scrub', S]); print('scrub', r[0], r[1][-150:]); print('lost named', lostnamed, 'problems', problems)
