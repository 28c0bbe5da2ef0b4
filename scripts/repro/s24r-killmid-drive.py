#!/usr/bin/env python3
# s24r copy of s22r-killmid-drive.py: ZONES=GLOB limits the flips to those zone files ('*.cache': the WCL cache).
# s22r: driver of s22r-api-killmid.rs (built as /tmp/s22r-bin/s22r_killmid, KM=path): per trial, the API run
# with THREADS writers is killed at a named point (write-torn-block:n in plan order, n random up to NMAX, or
# journal-record:n with JR=1), then FLIPS bits flipped in zone files of OSSs the kill message does not name
# as torn (ANY=1: any OSS; KEEP=DIR keeps each crash image before the flip), then `check` (a new process: open = recovery, every byte from a write over it,
# scrub clean). usage: KM=... s22r-killmid-drive.py DIR CODE PATH TRIALS [SEED] [THREADS] [WRITES] [UNIT]
import os, random, subprocess, sys, glob
KM = os.environ.get('KM', '/tmp/s22r-bin/s22r_killmid')
D, code, path, trials = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
th, wr, unit = (sys.argv[6] if len(sys.argv) > 6 else '4'), (sys.argv[7] if len(sys.argv) > 7 else '30'), (sys.argv[8] if len(sys.argv) > 8 else '4096')
FL, NMAX = int(os.environ.get('FLIPS', '1')), int(os.environ.get('NMAX', '80'))
rnd = random.Random(seed); bad = killed = lost = 0
for t in range(trials):
    env = dict(os.environ)
    if os.environ.get('JR') == '1':
        env['EXARAID_KILL_AT'] = 'journal-record:%d' % rnd.randrange(2, NMAX)
    else:
        env['EXARAID_KILL_AT'] = 'write-torn-block:%d' % rnd.randrange(1, NMAX); env['EXARAID_KILL_IN_PLAN_ORDER'] = '1'
    s = str(seed * 1000 + t)
    p = subprocess.run(['timeout', '120', KM, 'run', D, code, path, s, th, wr, unit], env=env, capture_output=True)
    if p.returncode == 124: print('HANG run', t, env['EXARAID_KILL_AT']); bad += 1; continue
    if p.returncode not in (137, -9):
        if b'PROBLEM' in p.stdout: print('RUN PROBLEM', t, p.stdout[-400:]); bad += 1
        continue
    killed += 1
    err = p.stderr.decode(errors='replace')
    if os.environ.get('KEEP'):  # KEEP=DIR: the crash image of every killed trial, before any flip
        subprocess.run(['cp', '-a', D, '%s/trial-%d' % (os.environ['KEEP'], t)]); subprocess.run(['cp', D + '.log', '%s/trial-%d.log' % (os.environ['KEEP'], t)])
    torn = set(l.split('/oss-')[1].split()[0].rstrip(',') for l in err.split('\n') if '/oss-' in l)
    files = [f for f in glob.glob(D + '/oss-*/objects/' + os.environ.get('ZONES', '*')) if os.path.getsize(f) > 0]
    if os.environ.get('ANY') != '1':
        files = [f for f in files if f.split('/oss-')[1].split('/')[0] not in torn]
    fl = []; used = set()
    for _ in range(FL):
        cand = [f for f in files if f.split('/oss-')[1].split('/')[0] not in used]
        if not cand: break
        f = rnd.choice(cand); used.add(f.split('/oss-')[1].split('/')[0]); o = rnd.randrange(os.path.getsize(f))
        with open(f, 'r+b') as h:
            h.seek(o); b = h.read(1); h.seek(o); h.write(bytes([b[0] ^ (1 << rnd.randrange(8))]))
        fl.append('%s@%d' % (f[len(D):], o))
    c = subprocess.run(['timeout', '120', KM, 'check', D], capture_output=True)
    out = c.stdout.decode(errors='replace')
    desc = 'trial %d seed %s kill %s torn %s flips %s' % (t, s, env['EXARAID_KILL_AT'], sorted(torn), fl)
    # not problems: the put itself cut (no file), and scrub(false) counting the flipped blocks recovery
    # had no reason to read (`corrupt N` alone); the .rs flags both
    probs = [l for l in out.split('\n') if l.startswith('PROBLEM') and 'mismatches [] unrepairable [] corrupt' not in l
             and not ('no file named' in l and 'A 7' not in open(D + '.log').read())]
    if c.returncode == 124: bad += 1; print('HANG check', desc)
    elif probs or b'panicked' in c.stderr:
        bad += 1; print('CHECK PROBLEM', desc, out[-700:], c.stderr[-300:].decode(errors='replace'), flush=True)
    elif 'get refused' in out:
        lost += 1; print('  lost', desc, out[-300:], flush=True)
    elif os.environ.get('V'): print('  ok', desc, out.strip()[-120:])
print('%s %s threads %s: %d trials, %d killed, %d lost named, %d PROBLEMS' % (code, path, th, trials, killed, lost, bad))
