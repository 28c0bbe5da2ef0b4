#!/usr/bin/env python3
# s21r: damage of the JOURNAL (or state / superblock) of a store left by a kill -9, so the journal holds
# records (a plain close checkpoints and empties it; s15r-meta-sweep.py's JOURNAL=1 needs a shim). Files
# put, acknowledged writes (WCL: cached, not destaged; delayed: a window open), then a last write killed
# at a named kill point. The pristine copy is taken then; per case one bit is flipped (bit = offset % 8)
# or the file is cut at a length, and `get` of every file runs (the open recovers): every byte must be
# acknowledged (old or new for the killed write) with exit 0, or the command refused with a message.
# After each case the damaged file is put back on a fresh copy: nothing else is checked then.
# Flags: WRONG (rc 0, a byte neither acknowledged nor the killed write's), WARNWRONG (same with a warning
# on stderr), PANIC, NOMSG. usage: EXARAID=... s21r-journal-flip.py DIR WP FILE MODE [STEP] [KILL]
#   WP: wcl | delayed | rmw;  FILE: journal | state | superblock;  MODE: flip | trunc
#   KILL: kill point of the last write (default journal-record:2; 'none': no killed write)
import os, random, shutil, subprocess, sys
E = os.environ['EXARAID']
D, wp, what, mode = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
step = int(sys.argv[5]) if len(sys.argv) > 5 else 1
killat = sys.argv[6] if len(sys.argv) > 6 else 'journal-record:2'
UNIT = int(os.environ.get('UNIT', '8192'))
S, P = D + '/s', D + '/pristine'
def run(args, inp=b'', env=None):
    e = dict(os.environ); e.update(env or {})
    return subprocess.run(['timeout', '60', E, 'store'] + args, input=inp, env=e, capture_output=True)
rnd = random.Random(5)
shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
assert run(['init', S, '--oss', '6', '--code', 'raid6', '--stripe-unit', str(UNIT), '--write-path', wp]).returncode == 0
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
    p = run(['write', S, 'f2', '--offset', str(off)], w, {'EXARAID_KILL_AT': killat})
    assert p.returncode in (-9, 137), (p.returncode, p.stderr)
    a = bytearray(exp['f2']); a[off:off + len(w)] = w; alt['f2'] = a
shutil.copytree(S, P, symlinks=True)
orig = open(os.path.join(P, what), 'rb').read()
print('%s: %d bytes, %s step %d, wp %s, kill %s' % (what, len(orig), mode, step, wp, killat), flush=True)
counts = {}; rcs = {}
def ok_bytes(name, got):
    e = exp[name]; a = alt.get(name)
    if got == bytes(e) or (a is not None and got == bytes(a)): return True
    if a is None or len(got) != len(a): return False
    return all(got[i] == e[i] or got[i] == a[i] for i in range(len(got)))
for pos in range(0, len(orig), step):
    shutil.rmtree(S, ignore_errors=True); shutil.copytree(P, S, symlinks=True)
    b = bytearray(orig)
    if mode == 'flip': b[pos] ^= 1 << (pos % 8)
    else: b = b[:pos]
    open(os.path.join(S, what), 'wb').write(b)
    tags = []; lines = []
    for name in sorted(exp):
        p = run(['get', S, name]); err = p.stderr.decode(errors='replace')
        rcs[p.returncode] = rcs.get(p.returncode, 0) + 1
        if p.returncode in (101, 134, 124) or p.returncode < 0 or 'panicked' in err:
            tags.append('PANIC'); lines.append('get %s rc %d %s' % (name, p.returncode, err[-300:]))
        elif p.returncode == 0 and not ok_bytes(name, p.stdout):
            tags.append('WARNWRONG' if err.strip() else 'WRONG')
            e = exp[name]; d = [i for i in range(min(len(e), len(p.stdout))) if e[i] != p.stdout[i]]
            lines.append('get %s rc 0 len %d exp %d differ %d first %s err %s' % (name, len(p.stdout), len(e), len(d), d[:3], err.strip()[-300:]))
        elif p.returncode != 0 and not err.strip():
            tags.append('NOMSG'); lines.append('get %s rc %d no message' % (name, p.returncode))
    for t in set(tags): counts[t] = counts.get(t, 0) + 1
    if tags: print('%s %s %d: %s | %s' % (what, mode, pos, ','.join(sorted(set(tags))), ' || '.join(lines[:3])), flush=True)
print('DONE %s %s %s: problems %s rc counts %s' % (what, mode, wp, counts, rcs))
shutil.rmtree(D, ignore_errors=True)
