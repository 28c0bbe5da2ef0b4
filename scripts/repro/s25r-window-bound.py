#!/usr/bin/env python3
# s25r sweep: delayed windows with a short timeout and a small unprotected-bytes bound, one command killed.
# Per trial: init (delayed, --window-timeout-ms T in {1, 50, 600000}, --unprotected-max-bytes B in {4096,
# 3*UNIT, 1 GiB}); put f; `delayed start`; 2..6 writes in the window (random offsets, some extending), ONE
# of the window's commands (a write, or the END) killed at a random point (write-torn-block:n, journal-record:n,
# settle-begun/element/stripe/synced:n, settle-torn-block:n; plan order); sleeps between some commands so the
# timeout falls due; then `delayed end` (a token already closed by the timeout: "unknown" is fine), `get`
# (every byte the last acknowledged write's, or the killed write's where it is the last writer there, or LOST
# named), then two OSSs failed and `get` again (the window ended: parity must carry every byte).
# Faults: the crash only (and at the second get two failed OSSs, after the crash was settled): within raid6.
# Env: EXARAID (binary), CODE (raid6:6 default; rs:4:2), KEEP=DIR (image of the first problem trial, taken
#      before its END), POINTS (s27r: comma list of kill points to draw from, e.g.
#      settle-page-cut,write-page-cut; s26e's block-page-cut is write-page-cut since s27c). usage: EXARAID=... s25r-window-bound.py DIR UNIT TRIALS SEED
# example: EXARAID=/tmp/s25r-bin python3 scripts/repro/s25r-window-bound.py /tmp/s25r-w 4096 60 1
import os, random, subprocess, sys, shutil, time
E = os.environ['EXARAID']
D, unit, trials, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed); drnd = random.Random(seed * 31)
c = os.environ.get('CODE', 'raid6:6').split(':')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import code_args  # s26r: array codes too (hcode:5:6 ...)
n, extra = code_args(os.environ.get('CODE', 'raid6:6'))
problems = lost1 = lost2 = killed = 0
kept = False
POINTS = ['write-torn-block', 'journal-record', 'settle-begun', 'settle-element', 'settle-stripe', 'settle-synced', 'settle-torn-block']
if os.environ.get('POINTS'): POINTS = os.environ['POINTS'].split(',')  # s27r: e.g. the page cuts

def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    p = subprocess.run(['timeout', '120', E, 'store'] + args, input=inp, env=e, capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr:
        global problems; problems += 1
        print('PROBLEM hang/panic', args, p.stderr[-600:])
    return p

def allowed(x, old, ws):
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
    S = D + '/s'; shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    tmo = rnd.choice([1, 50, 600000]); bound = rnd.choice([4096, 3 * unit, 1 << 30])
    assert run(['init', S, '--oss', str(n), '--code', c[0], '--stripe-unit', str(unit), '--write-path', 'delayed',
                '--window-timeout-ms', str(tmo), '--unprotected-max-bytes', str(bound)] + extra).returncode == 0
    size = rnd.randrange(unit, unit * 10); old = drnd.randbytes(size)
    assert run(['put', S, 'f'], old).returncode == 0
    tok = run(['delayed', 'start', S, 'f']).stdout.decode().strip()
    nw = rnd.randrange(2, 7); kat = rnd.randrange(nw + 1)  # kat == nw: the END is killed
    kp = '%s:%d' % (rnd.choice(POINTS), rnd.randrange(1, 6))
    ws = []; log = []; cur = size
    for i in range(nw):
        o = rnd.randrange(cur + unit); d = drnd.randbytes(rnd.randrange(1, unit * 3))
        env = {'EXARAID_KILL_AT': kp, 'EXARAID_KILL_IN_PLAN_ORDER': '1'} if i == kat else {}
        w = run(['write', S, 'f', '--offset', str(o)], d, env)
        if w.returncode == 0: ws.append((o, d, True)); cur = max(cur, o + len(d)); log.append((o, len(d), 'ack'))
        elif w.returncode == -9: ws.append((o, d, False)); killed += 1; log.append((o, len(d), 'killed ' + kp))
        else: log.append((o, len(d), 'refused rc %d' % w.returncode)); print('write refused', w.stderr[-300:])
        if rnd.random() < 0.3: time.sleep(0.06)
    desc = 'trial %d timeout %d bound %d size %d writes %s' % (t, tmo, bound, size, log)
    if os.environ.get('KEEP') and not kept:
        shutil.rmtree(os.environ['KEEP'], ignore_errors=True); shutil.copytree(D, os.environ['KEEP'], symlinks=True)
    env = {'EXARAID_KILL_AT': kp, 'EXARAID_KILL_IN_PLAN_ORDER': '1'} if kat == nw else {}
    e = run(['delayed', 'end', S, tok], b'', env)
    desc += ' end rc %d%s' % (e.returncode, ' (killed at %s)' % kp if e.returncode == -9 else '')
    if e.returncode == -9: killed += 1; e = run(['delayed', 'end', S, tok]); desc += ' end again rc %d' % e.returncode
    if e.returncode not in (0, -9) and b'unknown' not in e.stderr.lower() and b'no open' not in e.stderr.lower():
        print('END says', desc, e.stderr[-300:])
    g1 = run(['get', S, 'f']); r1 = check(g1, old, ws, desc, 'after end')
    st = run(['status', S, '--json']).stdout.decode()
    if '"open_windows": []' not in st.replace('\n', '').replace(' ', '').replace('"open_windows":[]', '"open_windows": []'):
        pass
    ys = list(range(n)); rnd.shuffle(ys)
    for y in ys[:2]: run(['fail', S, '--oss', str(y)])
    g2 = run(['get', S, 'f']); r2 = check(g2, old, ws, desc + ' then fail %s' % ys[:2], 'two failed')
    if r1 == 'ok' and r2 == 'lost': print('LOSS with two failed (read before)', desc, g2.stderr[-300:]); problems += 1
    lost1 += r1 == 'lost'; lost2 += r2 == 'lost'
    if problems and os.environ.get('KEEP') and not kept: kept = True; print('kept image', os.environ['KEEP'])
print('code', c, 'unit', unit, trials, 'trials', killed, 'killed', lost1, 'lost after end', lost2, 'lost with two failed', problems, 'PROBLEMS')
shutil.rmtree(D, ignore_errors=True)
