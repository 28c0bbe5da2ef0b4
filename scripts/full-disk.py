#!/usr/bin/env python3
"""Review tool (engineer s5s, not CI; needs root for mount): brief item 4 (full disks: E6
reservation at WCL admission, E1 close warnings). The OSS directories are small tmpfs mounts
(OSS_MB each; META_MB>0: the store directory too), filled by random writes / puts / rms until
they refuse, some of each killed -9 at a random durable call (killshim), a refused or killed
one followed by a `get` of its file. Model: acknowledged (exit 0) bytes exact; a refused or
killed write: each byte of its range old or new (what the next get shows is then adopted);
a killed put: old or new file; a killed rm: there or gone. Also: no panic ever, every refusal
says something (non-empty stderr), and at the end (mounts still full) status, scrub and a
failed OSS reading every file.
Usage: full-disk.py STEPS [seed]  Env: CODE (default "raid6 --k 4"), NOSS (6), WPATH (wcl),
OSS_MB (3), META_MB (0), KILLP (kill probability, 0.3), EXARAID, SHIM, S5S_DIR (scratch: s5s-full
under $REPRO_DIR or a new temporary directory).
Prints problems and "DONE ... N problems"."""
import os, random, subprocess, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)

E = os.environ.get("EXARAID", "/work/target-s5r/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s5s-killshim.so")
ROOT = os.environ.get("S5S_DIR") or scratch("s5s-full")
CODE = os.environ.get("CODE", "raid6 --k 4").split()
NOSS = int(os.environ.get("NOSS", "6"))
WPATH = os.environ.get("WPATH", "wcl")
KILLP = float(os.environ.get("KILLP", "0.3"))
steps = int(sys.argv[1]); seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
r = random.Random(seed)
problems = []


def sh(*a):
    subprocess.run(list(a), check=False, capture_output=True)


def run(a, inp=b"", kill=None):
    env = dict(os.environ); env.pop("LD_PRELOAD", None)
    if kill:
        env.update(LD_PRELOAD=SHIM, KILLN=str(kill), KILLTEAR=str(r.randrange(2)))
    p = subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)
    err = p.stderr.decode(errors="replace")
    if "panicked" in err:
        problems.append("PANIC in %s: %s" % (a[0], err[-400:]))
    if p.returncode not in (0, -9) and not err.strip():
        problems.append("%s rc %d with an empty stderr" % (a[0], p.returncode))
    return p


for i in range(NOSS):
    sh("umount", "%s/m%d" % (ROOT, i))
sh("umount", ROOT + "/meta")
sh("rm", "-rf", ROOT)
os.makedirs(ROOT)
dirs = []
for i in range(NOSS):
    m = "%s/m%d" % (ROOT, i); os.makedirs(m)
    sh("mount", "-t", "tmpfs", "-o", "size=%dm" % int(os.environ.get("OSS_MB", "3")), "tmpfs", m)
    dirs.append(m + "/oss")
d = ROOT + "/meta"
os.makedirs(d)
if int(os.environ.get("META_MB", "0")):
    sh("mount", "-t", "tmpfs", "-o", "size=%dm" % int(os.environ["META_MB"]), "tmpfs", d)
d += "/store"
p = run(["init", d, "--oss-dirs", ",".join(dirs), "--code"] + CODE + ["--stripe-unit", "65536", "--write-path", WPATH])
assert p.returncode == 0, p.stderr
files = {}  # name -> bytes (exact) ; a name maybe-present: files[name] = None handled below
refused = acked = killed = 0
for step in range(steps):
    op = r.choice(["write"] * 5 + ["put", "put", "rm"])
    kill = r.randrange(1, 60) if r.random() < KILLP else None
    names = sorted(files)
    if op == "write" or (op == "rm" and not names):
        nm = r.choice(names + ["f%d" % r.randrange(6)]) if names else "f0"
        old = files.get(nm, b"")
        off = r.randrange(0, len(old) + 65536)
        w = r.randbytes(r.randrange(1, 300000))
        p = run(["write", d, nm, "--offset", str(off)], w, kill)
        new = bytearray(old) + bytearray(max(0, off + len(w) - len(old)))
        new[off:off + len(w)] = w
        new = bytes(new)
        if p.returncode == 0:
            files[nm] = new; acked += 1
            continue
        killed += p.returncode == -9; refused += p.returncode != -9
        g = run(["get", d, nm])
        if g.returncode != 0:
            if nm not in files and "no file" in g.stderr.decode(errors="replace").lower():
                continue
            problems.append("step %d: after %s write %s@%d+%d rc %d (%s): get rc %d: %s" % (
                step, "killed" if kill else "refused", nm, off, len(w), p.returncode,
                p.stderr.decode(errors="replace").strip()[-200:], g.returncode, g.stderr.decode(errors="replace")[-300:]))
            continue
        a = g.stdout
        o2 = old + bytes(len(new) - len(old))
        ok = len(a) in (len(old), len(new)) and all(a[i] in (o2[i], new[i]) for i in range(len(a)))
        if not ok:
            bad = [i for i in range(min(len(a), len(new))) if a[i] not in (o2[i], new[i])]
            problems.append("step %d: WRONG after %s write %s@%d+%d rc %d: len %d (old %d new %d), %d bad bytes from %s" % (
                step, "killed" if kill else "refused", nm, off, len(w), p.returncode, len(a), len(old), len(new), len(bad), bad[:1]))
        files[nm] = a
    elif op == "put":
        nm = r.choice(names + ["p%d" % r.randrange(4)]) if names else "p0"
        b = r.randbytes(r.randrange(1, 400000))
        p = run(["put", d, nm], b, kill)
        if p.returncode == 0:
            files[nm] = b; acked += 1; continue
        killed += p.returncode == -9; refused += p.returncode != -9
        g = run(["get", d, nm])
        allowed = [b] if p.returncode == -9 else []
        if nm in files:
            allowed.append(files[nm])
        if g.returncode != 0:
            if nm not in files:
                continue
            problems.append("step %d: after put %s rc %d: get rc %d: %s" % (step, nm, p.returncode, g.returncode, g.stderr.decode(errors="replace")[-300:]))
        elif g.stdout not in allowed:
            problems.append("step %d: WRONG after put %s rc %d (%s): got len %d" % (step, nm, p.returncode, p.stderr.decode(errors="replace")[-150:], len(g.stdout)))
        else:
            files[nm] = g.stdout
    else:
        nm = r.choice(names)
        p = run(["rm", d, nm], b"", kill)
        if p.returncode == 0:
            del files[nm]; acked += 1; continue
        killed += p.returncode == -9; refused += p.returncode != -9
        g = run(["get", d, nm])
        if g.returncode != 0:
            if "no file" in g.stderr.decode(errors="replace").lower() or "not found" in g.stderr.decode(errors="replace").lower():
                del files[nm]
            else:
                problems.append("step %d: after rm %s rc %d: get rc %d: %s" % (step, nm, p.returncode, g.returncode, g.stderr.decode(errors="replace")[-300:]))
        elif g.stdout != files[nm]:
            problems.append("step %d: WRONG after rm %s rc %d" % (step, nm, p.returncode))
    if step % 10 == 9:
        for nm, exp in list(files.items()):
            g = run(["get", d, nm])
            if g.returncode != 0 or g.stdout != exp:
                problems.append("step %d check: get %s rc %d %s" % (step, nm, g.returncode, "WRONG" if g.returncode == 0 else g.stderr.decode(errors="replace")[-300:]))
                if g.returncode == 0:
                    files[nm] = g.stdout
for nm, exp in files.items():
    g = run(["get", d, nm])
    if g.returncode != 0 or g.stdout != exp:
        problems.append("final: get %s rc %d %s" % (nm, g.returncode, "WRONG" if g.returncode == 0 else g.stderr.decode(errors="replace")[-300:]))
s = run(["scrub", d])
if s.returncode != 0:
    problems.append("final scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
fo = r.randrange(NOSS)
run(["fail", d, "--oss", str(fo)])
for nm, exp in files.items():
    g = run(["get", d, nm])
    if g.returncode != 0 or g.stdout != exp:
        problems.append("final, OSS %d failed: get %s rc %d %s" % (fo, nm, g.returncode, "WRONG" if g.returncode == 0 else g.stderr.decode(errors="replace")[-300:]))
df = subprocess.run(["df", "-k"] + [os.path.dirname(x) for x in dirs], capture_output=True).stdout.decode()
for x in problems:
    print(x, flush=True)
print("df:", " ".join(l.split()[4] for l in df.splitlines()[1:]))
print("DONE full-disk %s %s seed %d: steps %d acked %d refused %d killed %d, %d problems" % (
    WPATH, " ".join(CODE), seed, steps, acked, refused, killed, len(problems)))
if not os.environ.get("KEEP"):
    for i in range(NOSS):
        sh("umount", "%s/m%d" % (ROOT, i))
    sh("umount", ROOT + "/meta")
    sh("rm", "-rf", ROOT)
