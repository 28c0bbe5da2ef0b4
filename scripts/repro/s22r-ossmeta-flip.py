#!/usr/bin/env python3
# s22r: damage of an OSS's OWN metadata (exaraid-extents.log / exaraid-extents.json / exaraid-epoch.json /
# exaraid-oss.json) of a store left by a kill -9 inside a write (so recovery has work to do), one bit
# (bit = offset % 8) or a cut at a length per case, then `get` of every file (the open recovers).
# s21r-journal-flip.py did the store-level journal / state / superblock; this does the per-OSS files.
# Every byte must be acknowledged (old or new for the killed write) with exit 0, or the command refused
# with a message. Flags: WRONG, WARNWRONG (rc 0 with a warning), PANIC, NOMSG.
# usage: EXARAID=... s22r-ossmeta-flip.py DIR WP CODE FILE MODE [STEP] [KILL] [OSS]
#   WP: wcl | delayed | rmw; CODE raid6 | rs43 | raid5; FILE: extents.log | extents.json | epoch.json | oss.json
#   MODE: flip | trunc; KILL default write-torn-block:3 ('none': no killed write); OSS: which OSS (default all)
import os, random, shutil, subprocess, sys
E = os.environ['EXARAID']
D, wp, code, what, mode = sys.argv[1:6]
step = int(sys.argv[6]) if len(sys.argv) > 6 else 1
killat = sys.argv[7] if len(sys.argv) > 7 else 'write-torn-block:3'
only = sys.argv[8] if len(sys.argv) > 8 else None
UNIT = int(os.environ.get('UNIT', '8192'))
S, P = D + '/s', D + '/pristine'
codeargs = {'raid6': ['--oss', '6', '--code', 'raid6'], 'raid5': ['--oss', '5', '--code', 'raid5'],
            'rs43': ['--oss', '7', '--code', 'rs', '--k', '4', '--m', '3']}[code]
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    return subprocess.run(['timeout', '60', E, 'store'] + args, input=inp, env=e, capture_output=True)
rnd = random.Random(7)
shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
assert run(['init', S] + codeargs + ['--stripe-unit', str(UNIT), '--write-path', wp]).returncode == 0
exp = {}
for i in range(3):
    b = rnd.randbytes(UNIT * (3 + 2 * i) + 1234 * i + 77); assert run(['put', S, 'f%d' % i], b).returncode == 0
    exp['f%d' % i] = bytearray(b)
if wp == 'delayed':
    p = run(['delayed', 'start', S, 'f1']); assert p.returncode == 0, p.stderr
for (name, off, ln) in [('f1', 3000, 9000), ('f2', UNIT * 2 + 5, 6000), ('f0', UNIT * 5, 3000)]:
    w = rnd.randbytes(ln); p = run(['write', S, name, '--offset', str(off)], w); assert p.returncode == 0, p.stderr
    d = exp[name]
    if len(d) < off: d.extend(b'\0' * (off - len(d)))
    d[off:off + ln] = w
alt = {}
if killat != 'none':
    off, w = UNIT + 100, rnd.randbytes(UNIT * 2)
    p = run(['write', S, 'f2', '--offset', str(off)], w, {'EXARAID_KILL_AT': killat, 'EXARAID_KILL_IN_PLAN_ORDER': '1'})
    assert p.returncode in (-9, 137), (p.returncode, p.stderr)
    a = bytearray(exp['f2']); a[off:off + len(w)] = w; alt['f2'] = a
shutil.copytree(S, P, symlinks=True)
targets = sorted(d for d in os.listdir(P) if d.startswith('oss-') and (only is None or d == 'oss-' + only))
def ok_bytes(name, got):
    e = exp[name]; a = alt.get(name)
    if got == bytes(e) or (a is not None and got == bytes(a)): return True
    if a is None or len(got) != len(a): return False
    return all(got[i] == e[i] or got[i] == a[i] for i in range(len(got)))
counts = {}; rcs = {}; cases = 0
for t in targets:
    rel = os.path.join(t, 'exaraid-' + what)
    if not os.path.exists(os.path.join(P, rel)): continue
    orig = open(os.path.join(P, rel), 'rb').read()
    print('%s: %d bytes, %s step %d, wp %s, kill %s' % (rel, len(orig), mode, step, wp, killat), flush=True)
    for pos in range(0, len(orig) + (1 if mode == 'trunc' else 0), step):
        cases += 1
        shutil.rmtree(S, ignore_errors=True); shutil.copytree(P, S, symlinks=True)
        b = bytearray(orig)
        if mode == 'flip': b[pos] ^= 1 << (pos % 8)
        else: b = b[:pos]
        open(os.path.join(S, rel), 'wb').write(b)
        tags = []; lines = []
        for name in sorted(exp):
            p = run(['get', S, name]); err = p.stderr.decode(errors='replace')
            rcs[p.returncode] = rcs.get(p.returncode, 0) + 1
            if p.returncode in (101, 134, 124) or p.returncode < 0 or 'panicked' in err:
                tags.append('PANIC'); lines.append('get %s rc %d %s' % (name, p.returncode, err[-300:]))
            elif p.returncode == 0 and not ok_bytes(name, p.stdout):
                tags.append('WARNWRONG' if err.strip() else 'WRONG')
                e = exp[name]; dd = [i for i in range(min(len(e), len(p.stdout))) if e[i] != p.stdout[i]]
                lines.append('get %s rc 0 len %d exp %d differ %d first %s err %s' % (name, len(p.stdout), len(e), len(dd), dd[:3], err.strip()[-300:]))
            elif p.returncode != 0 and not err.strip():
                tags.append('NOMSG'); lines.append('get %s rc %d no message' % (name, p.returncode))
        for tg in set(tags): counts[tg] = counts.get(tg, 0) + 1
        if tags: print('%s %s %d: %s | %s' % (rel, mode, pos, ','.join(sorted(set(tags))), ' || '.join(lines[:3])), flush=True)
print('DONE %s %s %s %s: %d cases, problems %s rc counts %s' % (what, mode, wp, code, cases, counts, rcs))
shutil.rmtree(D, ignore_errors=True)
