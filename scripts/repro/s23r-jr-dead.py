#!/usr/bin/env python3
# s23r: a wide rmw write killed at its n-th journal record (or torn block), then one OSS failed (its disk dead), get.
# usage: EXARAID=... jr-dead.py CODEARGS UNIT SIZE OFF LEN POINT NMAX
import os, subprocess, sys, random
E = os.environ['EXARAID']; S = os.environ.get('D', '/tmp/s23r-w/jd')
code = sys.argv[1].split(); unit, size, off, ln = map(int, sys.argv[2:6]); point = sys.argv[6]; nmax = int(sys.argv[7])
n_oss = int(code[code.index('--oss') + 1])
def run(a, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run([E, 'store'] + a, input=inp, env=e, capture_output=True, timeout=120)
    if b'panicked' in p.stderr: print('PANIC', a, p.stderr[:600])
    return p
r = random.Random(5); old = r.randbytes(size); data = r.randbytes(ln)
new = bytearray(old); new.extend(b'\0' * max(0, off + ln - len(new))); new[off:off + ln] = data
stats = {}
for n in range(1, nmax + 1):
    for x in range(n_oss):
        subprocess.run(['rm', '-rf', S])
        assert run(['init', S] + code + ['--stripe-unit', str(unit), '--write-path', os.environ.get('WP', 'rmw')]).returncode == 0
        assert run(['put', S, 'f'], old).returncode == 0
        env = {'EXARAID_KILL_AT': '%s:%d' % (point, n)}
        if point == 'write-torn-block': env['EXARAID_KILL_IN_PLAN_ORDER'] = '1'
        w = run(['write', S, 'f', '--offset', str(off)], data, env)
        if w.returncode != -9: stats['notkilled'] = stats.get('notkilled', 0) + 1; break
        if os.environ.get('AWAY') == '1': os.rename(S + '/oss-%d' % x, S + '/oss-%d.gone' % x)
        f = run(['fail', S, '--oss', str(x)])
        g = run(['get', S, 'f'])
        if g.returncode == 0:
            got = g.stdout
            wrong = [i for i in range(len(got)) if got[i] != (old[i] if i < len(old) else 0) and (i >= len(new) or got[i] != new[i])]
            if wrong or len(got) not in (len(old), len(new)):
                print('WRONG', n, x, len(got), len(wrong), wrong[:4]); stats['wrong'] = stats.get('wrong', 0) + 1
            else: stats['ok'] = stats.get('ok', 0) + 1
        elif b'lost' in g.stderr.lower():
            stats['lost'] = stats.get('lost', 0) + 1
            if os.environ.get('V'): print('lost', n, x, g.stderr[-250:])
        else:
            print('FAILED', n, x, f.returncode, f.stderr[-200:], g.stderr[-300:]); stats['failed'] = stats.get('failed', 0) + 1
print(sys.argv[1:], stats)
subprocess.run(['rm', '-rf', S])
