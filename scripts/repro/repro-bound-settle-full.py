#!/usr/bin/env python3
"""Review s6r, R6-4: a `write` inside a delayed window that takes the window past
--unprotected-max-bytes on a store whose disk is full (--oss-capacity 120000, dcode p=5 over 6
OSSs, 4 KiB unit, OSS 5 failed) exits 1 saying "... needs room that is not there ... Nothing was
changed", yet the file holds the write's bytes (the write ran; the parity advance of the bound
failed after it). Replays 31 commands found by scripts/full-capacity-fuzz.py (seed 3) and
minimized. Usage: EXARAID=... repro-bound-settle-full.py [DIR]   exit 1 = reproduced."""
import os, random, subprocess, sys, shutil
E = os.environ.get("EXARAID", "target/release/exaraid")
D = sys.argv[1] if len(sys.argv) > 1 else "/tmp/s6r-repro"
rng = random.Random(1)
tokens = {}
def run(a, n, var=None, show=True):
    a = [tokens.get(x, x) for x in a]
    a = [D if x == "DIR" else x for x in a]
    p = subprocess.run([E, "store"] + a, input=rng.randbytes(n), capture_output=True)
    if var: tokens["@T_" + var] = p.stdout.decode().strip()
    if show: print("$ exaraid store %s%s -> rc %d %s" % (" ".join(a), " < %d bytes" % n if n else "", p.returncode, p.stderr.decode(errors="replace").strip()[:200]))
    return p
shutil.rmtree(D, ignore_errors=True)
CMDS = [(['init', 'DIR', '--oss', '6', '--stripe-unit', '4096', '--write-path', 'delayed', '--oss-capacity', '120000', '--code', 'dcode', '--p', '5', '--unprotected-max-bytes', '5000'], 0, None), (['write', 'DIR', 'f4', '--offset', '1068'], 6062, None), (['write', 'DIR', 'f1', '--offset', '3613'], 11843, None), (['write', 'DIR', 'f2', '--offset', '1256'], 9156, None), (['put', 'DIR', 'f2'], 5131, None), (['put', 'DIR', 'f1'], 40592, None), (['put', 'DIR', 'f1'], 40970, None), (['write', 'DIR', 'f0', '--offset', '1108'], 6559, None), (['rm', 'DIR', 'f0'], 0, None), (['put', 'DIR', 'f5'], 24514, None), (['put', 'DIR', 'f5'], 36696, None), (['put', 'DIR', 'f5'], 18287, None), (['put', 'DIR', 'f4'], 368, None), (['delayed', 'start', 'DIR', 'f4'], 0, '6634'), (['write', 'DIR', 'f5', '--offset', '695'], 12183, None), (['put', 'DIR', 'f5'], 47276, None), (['write', 'DIR', 'f0', '--offset', '1323'], 12121, None), (['rm', 'DIR', 'f5'], 0, None), (['put', 'DIR', 'f1'], 10525, None), (['write', 'DIR', 'f3', '--offset', '3889'], 6337, None), (['put', 'DIR', 'f3'], 39804, None), (['write', 'DIR', 'f5', '--offset', '1489'], 1729, None), (['put', 'DIR', 'f1'], 6383, None), (['rm', 'DIR', 'f1'], 0, None), (['put', 'DIR', 'f2'], 38578, None), (['fail', 'DIR', '--oss', '3'], 0, None), (['write', 'DIR', 'f3', '--offset', '3549'], 7028, None), (['rebuild', 'DIR', '--oss', '3'], 0, None), (['fail', 'DIR', '--oss', '5'], 0, None), (['delayed', 'start', 'DIR', 'f2'], 0, '6632'), (['write', 'DIR', 'f2', '--offset', '10783'], 9432, None)]
for a, n, var in CMDS[:-1]:
    run(a, n, var, show=False)
before = run(["get", "DIR", "f2"], 0, show=False).stdout
w = run(*CMDS[-1][:2])
after = run(["get", "DIR", "f2"], 0, show=False).stdout
changed = before != after
print("write rc %d, file changed: %s" % (w.returncode, changed))
shutil.rmtree(D, ignore_errors=True)
if w.returncode != 0 and changed:
    print("REPRODUCED: the write failed (rc %d, 'Nothing was changed') but the file holds its bytes" % w.returncode)
    sys.exit(1)
print("not reproduced")
