#!/usr/bin/env python3
# s16r2: the store directory (superblock, journal, state) on a small tmpfs, OSS dirs elsewhere; random
# writes/puts/rm/delayed windows until and past ENOSPC, random OSS fail; every acked byte checked after
# each op, then after the metadata disk is grown. Root needed (mount). usage:
#   EXARAID=... s16r2-fullmeta.py BASE CODE WP SIZE_K SEED [NOPS]
import os, random, subprocess, sys
E = os.environ['EXARAID']; base, code, wp, sizek, seed = sys.argv[1:6]; nops = int(sys.argv[6]) if len(sys.argv) > 6 else 150
rnd = random.Random(int(seed)); md = base + '/meta'; od = base + '/oss'
subprocess.run(['umount', md], stderr=subprocess.DEVNULL); subprocess.run(['rm', '-rf', base]); os.makedirs(md); os.makedirs(od)
subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=%sk' % sizek, 'tmpfs', md], check=True)
n = 6; dirs = ','.join('%s/o%d' % (od, i) for i in range(n))
extra = ['--k', '3', '--m', '3'] if code == 'rs' else []
def run(args, inp=None):
    r = subprocess.run(['timeout', '60', E, 'store'] + args, input=inp, capture_output=True)
    if r.returncode == 124 or r.returncode >= 100 or r.returncode < 0: print('PROBLEM hang/panic', args, r.returncode, r.stderr[-400:]); sys.exit(1)
    return r
r = run(['init', md + '/s', '--oss-dirs', dirs, '--code', code, '--stripe-unit', '4096', '--write-path', wp] + extra)
if r.returncode: print('init', r.stderr); sys.exit(1)
S = md + '/s'; model = {}; lostok = {}; problems = 0; failed = []; tol = 2 if code in ('raid6',) else (3 if code == 'rs' else 1)
def check(tag):
    global problems
    for name, data in model.items():
        r = run(['get', S, name])
        if r.returncode == 0:
            if r.stdout != bytes(data): problems += 1; print('WRONG BYTES', tag, name, len(r.stdout), len(data))
        elif b'lost' not in r.stderr.lower() or name not in lostok:
            if b'No space' in r.stderr or b'full' in r.stderr.lower(): continue
            problems += 1; print('GET FAILED', tag, name, r.stderr[-300:])
stats = {}
for i in range(nops):
    op = rnd.choice(['write'] * 5 + ['put', 'rm', 'fail', 'flush'])
    name = 'f%d' % rnd.randrange(4)
    if op == 'write':
        off = rnd.randrange(0, 30000); data = os.urandom(rnd.randrange(1, 9000))
        r = run(['write', S, name, '--offset', str(off)], data)
        if r.returncode == 0:
            d = model.setdefault(name, bytearray()); 
            if len(d) < off: d.extend(b'\0' * (off - len(d)))
            d[off:off + len(data)] = data; d2 = d
    elif op == 'put':
        data = os.urandom(rnd.randrange(0, 20000)); r = run(['put', S, name], data)
        if r.returncode == 0: model[name] = bytearray(data)
    elif op == 'rm':
        r = run(['rm', S, name])
        if r.returncode == 0: model.pop(name, None)
    elif op == 'fail':
        if len(failed) < tol - 1 and rnd.random() < 0.3:
            o = rnd.randrange(n); r = run(['fail', S, '--oss', str(o)])
            if r.returncode == 0: failed.append(o)
        else: r = run(['status', S])
    else:
        r = run(['flush', S])
    k = (op, r.returncode); stats[k] = stats.get(k, 0) + 1
    if r.returncode and rnd.random() < 0.1: print('  ', op, r.returncode, r.stderr[:200])
    if i % 10 == 0: check('op%d' % i)
check('end-full')
print('stats', stats, 'failed', failed)
subprocess.run(['mount', '-o', 'remount,size=64m', md], check=True)
r = run(['status', S]); print('status after grow rc', r.returncode, r.stdout[-300:].decode(errors='replace'))
check('grown')
r = run(['scrub', S]); print('scrub rc', r.returncode, r.stdout[-200:])
print('problems', problems)
