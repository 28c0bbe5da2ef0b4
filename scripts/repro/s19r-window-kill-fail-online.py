#!/usr/bin/env python3
# s19r: R19-3 through the CLI? A delayed window; an acknowledged window write; a second window write
# killed -9 at a random instant; `fail --oss V`; `online --oss V`; END; `get`: each byte the acknowledged
# model or the killed write's (old or new), else named lost; never other bytes with exit 0.
# usage: EXARAID=... s19r-window-kill-fail-online.py DIR CODE TRIALS SEED  (CODE raid6:N | rs:K:M)
import os, random, subprocess, sys, time, signal
E = os.environ['EXARAID']; D, code, trials, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(seed); c = code.split(':')
if c[0] == 'rs': args, n = ['--oss', str(int(c[1]) + int(c[2])), '--k', c[1], '--m', c[2]], int(c[1]) + int(c[2])
else: args, n = ['--oss', c[1]], int(c[1])
def run(a, inp=None): return subprocess.run([E, 'store'] + a, input=inp, capture_output=True)
st = {'wrong': 0, 'lost': 0, 'ok': 0}
for t in range(trials):
    subprocess.run(['rm', '-rf', D]); S = D + '/s'
    assert run(['init', S, '--code', c[0], '--stripe-unit', '4096', '--write-path', 'delayed'] + args).returncode == 0
    size = 60000; model = bytearray(rnd.randbytes(size)); assert run(['put', S, 'f'], bytes(model)).returncode == 0
    # another file's window bytes first, so the shared cache zone holds older chunks
    run(['put', S, 'g'], rnd.randbytes(30000)); tg = run(['delayed', 'start', S, 'g']).stdout.decode().strip()
    run(['write', S, 'g', '--offset', '0'], rnd.randbytes(30000)); run(['delayed', 'end', S, tg])
    tok = run(['delayed', 'start', S, 'f']).stdout.decode().strip()
    o = rnd.randrange(0, size - 20000); a = rnd.randbytes(rnd.randrange(1, 20000))
    assert run(['write', S, 'f', '--offset', str(o)], a).returncode == 0; model[o:o + len(a)] = a
    o2 = rnd.randrange(0, size - 1); b = rnd.randbytes(rnd.randrange(1, size - o2))
    p = subprocess.Popen([E, 'store', 'write', S, 'f', '--offset', str(o2)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try: p.stdin.write(b); p.stdin.close()
    except BrokenPipeError: pass
    time.sleep(rnd.random() * 0.03); p.send_signal(signal.SIGKILL); p.wait()
    v = rnd.randrange(n)
    rf = run(['fail', S, '--oss', str(v)]); ro = run(['online', S, '--oss', str(v)]); re_ = run(['delayed', 'end', S, tok])
    bad = 0; lost = 0
    for blk in range(0, size, 4096):
        r = run(['read', S, 'f', '--offset', str(blk), '--length', str(min(4096, size - blk))])
        if r.returncode != 0: lost += 1; continue
        for i, x in enumerate(r.stdout):
            j = blk + i
            if x != model[j] and not (o2 <= j < o2 + len(b) and x == b[j - o2]): bad += 1
    if bad: st['wrong'] += 1; print('WRONG BYTES', t, 'write', o, len(a), 'killed', o2, len(b), 'fail', v, rf.returncode, 'online', ro.returncode, ro.stderr[-150:], 'end', re_.returncode, 'bad', bad); subprocess.run(['cp', '-a', S, D + '-wrong-%d' % t])
    elif lost: st['lost'] += 1
    else: st['ok'] += 1
print(code, 'trials', trials, st)
subprocess.run(['rm', '-rf', D])
