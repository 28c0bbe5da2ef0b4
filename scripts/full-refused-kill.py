#!/usr/bin/env python3
"""Review tool (engineer s5s, not CI; needs root for mount): brief item 4. A WCL (WPATH) raid6
store on 6 tmpfs OSS mounts of 1 MiB is filled by puts until one is refused (full); then that
refused put, and a settle on the full store (`rm` of the first file), are each killed -9 at
every durable call (the state restored at the same paths between kills). After each: every
other file exact, the refused put's file absent or old, scrub exit 0, no panic.
Usage: full-refused-kill.py   Env: WPATH (wcl), EXARAID, SHIM, S5S_DIR (scratch: s5s-frk
under $REPRO_DIR or a new temporary directory)."""
import os, random, shutil, subprocess, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
E = os.environ.get("EXARAID", "/work/target-s5r/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s5s-killshim.so")
ROOT = os.environ.get("S5S_DIR") or scratch("s5s-frk")
WP = os.environ.get("WPATH", "wcl")
r = random.Random(5)


def run(a, inp=b"", env=None):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)


def sh(*a):
    return subprocess.run(list(a), capture_output=True)


def setup():
    """The same full store every time (seeded; fresh tmpfs mounts: a copy would not keep the
    preallocated reservations)."""
    global r
    r = random.Random(5)
    for i in range(6):
        sh("umount", "%s/m%d" % (ROOT, i))
    shutil.rmtree(ROOT, ignore_errors=True)
    mounts = []
    for i in range(6):
        m = "%s/m%d" % (ROOT, i); os.makedirs(m); sh("mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", m); mounts.append(m)
    assert run(["init", d, "--oss-dirs", ",".join(m + "/oss" for m in mounts), "--code", "raid6", "--stripe-unit", "65536", "--write-path", WP]).returncode == 0
    files = {}
    n = 0
    while True:
        b = r.randbytes(r.randrange(200000, 700000))
        p = run(["put", d, "p%d" % n], b)
        if p.returncode != 0:
            return files, (("p%d" % n), b, p.stderr.decode(errors="replace").strip())
        files["p%d" % n] = b; n += 1
        for _ in range(2):
            nm = r.choice(sorted(files)); off = r.randrange(len(files[nm])); w = r.randbytes(r.randrange(1, 100000))
            q = run(["write", d, nm, "--offset", str(off)], w)
            if q.returncode == 0:
                x = bytearray(files[nm]) + bytearray(max(0, off + len(w) - len(files[nm]))); x[off:off + len(w)] = w; files[nm] = bytes(x)


d = ROOT + "/s"
files, refused = setup()
print("filled: %d files, refused put %s: %s" % (len(files), refused[0], refused[2][:200]), flush=True)
restore = setup
POINTS = int(os.environ.get("POINTS", "15"))
problems = 0
first = sorted(files)[0]
for what, cmd, inp in (("refused put", ["put", d, refused[0]], refused[1]), ("rm (settle)", ["rm", d, first], b"")):
    restore()
    env = dict(os.environ, LD_PRELOAD=SHIM, KILLN="0", KILLCOUNT_FILE=ROOT + "/count")
    p = run(cmd, inp, env)
    total = int(open(ROOT + "/count").read().split()[0])
    print("%s: rc %d unkilled, %d durable calls" % (what, p.returncode, total), flush=True)
    for k in sorted(set([1, 2, total] + [random.Random(k0).randrange(1, total + 1) for k0 in range(POINTS)])):
        restore()
        env = dict(os.environ, LD_PRELOAD=SHIM, KILLN=str(k), KILLTEAR=str(k % 2))
        p = run(cmd, inp, env)
        msg = []
        for nm, b in files.items():
            g = run(["get", d, nm])
            ok = g.returncode == 0 and g.stdout == b
            if nm == first and what.startswith("rm"):
                ok = ok or (g.returncode != 0 and nm not in run(["ls", d]).stdout.decode())
            if not ok:
                msg.append("get %s rc %d %s" % (nm, g.returncode, "WRONG" if g.returncode == 0 else g.stderr.decode(errors="replace")[-200:]))
        g = run(["get", d, refused[0]])
        if g.returncode == 0 and g.stdout != refused[1]:
            msg.append("refused file reads rc 0 with other bytes")
        s = run(["scrub", d])
        if s.returncode != 0:
            msg.append("scrub rc %d %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-200:]))
        for x in (p.stderr, s.stderr):
            if b"panicked" in x:
                msg.append("PANIC " + x.decode(errors="replace")[-200:])
        if msg:
            problems += 1
            print("  %s K=%d rc %d: %s" % (what, k, p.returncode, " | ".join(msg)[:600]), flush=True)
print("DONE full-refused-kill %s: %d problems" % (WP, problems))
for i in range(6):
    sh("umount", "%s/m%d" % (ROOT, i))
shutil.rmtree(ROOT, ignore_errors=True)
