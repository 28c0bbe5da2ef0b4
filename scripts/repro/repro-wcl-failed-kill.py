#!/usr/bin/env python3
"""Repro (review s5r, finding R5; not CI): WCL, raid6 k=4 over 9 OSSs, 64 KiB unit, 4 files, OSS 1
failed (recorded, `fail`), ONE write killed -9 at its K-th durable call, then `status` (recovery):
acknowledged bytes of that file OUTSIDE the killed write's range are recorded lost ("its cache
copy is unreadable beyond the code's tolerance") with one failed OSS on a 2-failure code.
Same steps as `ONLY=5 SKIP=1,2,3,4,5 scripts/chain-kill.py raid6:4 9 65536 wcl 6 1 6`.
Usage: repro-wcl-failed-kill.py [K] [FAILED]   (default K=20, FAILED=1)
Env: WPATH (write path, default wcl), CODE= (init code flags, default "raid6 --k 4"), NOSS= (default 9), OFF=, LEN= (offset / length of the killed write instead), EIO=1 (one transient EIO at call K instead of the kill), EXARAID, SHIM (default /tmp/s5g-killshim.so), S5R_DIR (scratch; default: $REPRO_DIR/s5g-rp-wfk, or that under a new temporary directory).
Prints the kill point, what status/get say, and PROBLEM or CLEAN; exit 1 on PROBLEM."""
import os, random, shutil, subprocess, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)

E = os.environ.get("EXARAID", "/work/target-s5g/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s5g-killshim.so")
d = (os.environ.get("S5R_DIR") or scratch("s5g-rp-wfk"))
K = int(sys.argv[1]) if len(sys.argv) > 1 else 20
FAILED = int(sys.argv[2]) if len(sys.argv) > 2 else 1


def run(a, inp=b"", env=None):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)


r = random.Random(1005)
shutil.rmtree(d, ignore_errors=True)
unit, stripe = 65536, 4 * 65536
# s5g: CODE (init's code flags, default "raid6 --k 4") and NOSS (default 9) give the variants
code = os.environ.get("CODE", "raid6 --k 4").split()
noss = os.environ.get("NOSS", "9")
assert run(["init", d, "--oss", noss, "--code"] + code + ["--stripe-unit", str(unit), "--write-path", os.environ.get("WPATH", "wcl")]).returncode == 0
files = {}
for i in range(4):
    b = r.randbytes(r.randrange(stripe // 3, int(stripe * 2.3)))
    assert run(["put", d, "f%d" % i], b).returncode == 0
    files["f%d" % i] = bytearray(b)
for i in range(3):
    nm = "f%d" % r.randrange(4)
    off = r.randrange(0, len(files[nm]))
    w = r.randbytes(r.randrange(1, unit * 2))
    assert run(["write", d, nm, "--offset", str(off)], w).returncode == 0
    if len(files[nm]) < off + len(w):
        files[nm].extend(b"\0" * (off + len(w) - len(files[nm])))
    files[nm][off:off + len(w)] = w
print("files:", {k: len(v) for k, v in files.items()})
r.randrange(9)  # the chain tool's draw of the failed OSS (9 OSSs): keeps the same random stream
assert run(["fail", d, "--oss", str(FAILED)]).returncode == 0
# the killed write: f3, the chain tool's first step
r.choice(["write"] * 2 + ["put", "rm", "rebuild-to", "rebuild-to", "rebuild", "status", "scrub"]); r.randrange(1, 80); r.random()
nm = "f%d" % r.randrange(4)
off = r.randrange(0, len(files[nm]) + unit)
w = r.randbytes(r.randrange(1, unit * 3))
if os.environ.get("OFF"):  # variants: another offset / length of the killed write
    off = int(os.environ["OFF"])
    w = w[:int(os.environ.get("LEN", len(w)))]
env = dict(os.environ, LD_PRELOAD=SHIM, KILLN=str(K), KILLTEAR="0")
if os.environ.get("EIO"):
    # one transient EIO at the K-th durable call instead of a kill (scripts/eioshim.c)
    env = dict(os.environ, LD_PRELOAD=os.environ.get("EIOSHIM", "/tmp/s5g-eioshim.so"), FAILN=str(K), FAILSTICKY="0")
p = run(["write", d, nm, "--offset", str(off)], w, env)
print("write %s --offset %d (%d B) killed at call %d: rc %d %s" % (nm, off, len(w), K, p.returncode, p.stderr.decode(errors="replace").strip()[:200]))
s = run(["status", d])
print("status rc %d; %s" % (s.returncode, [l for l in s.stdout.decode().splitlines() if "LOST" in l or "FAILED" in l][:4]))
bad = False
for f, exp in files.items():
    g = run(["get", d, f])
    if g.returncode != 0:
        print("get %s rc %d: %s" % (f, g.returncode, g.stderr.decode(errors="replace").strip()[-400:]))
        bad = True
        continue
    act = g.stdout
    if f == nm:
        new = bytearray(exp)
        if len(new) < off + len(w):
            new.extend(b"\0" * (off + len(w) - len(new)))
        new[off:off + len(w)] = w
        ok = len(act) in (len(exp), len(new)) and all(
            act[i] == (exp[i] if i < len(exp) else 0) or act[i] == new[i] for i in range(len(act)))
    else:
        ok = act == bytes(exp)
    if not ok:
        print("get %s rc 0 WRONG BYTES" % f)
        bad = True
print("PROBLEM" if bad else "CLEAN")
sys.exit(1 if bad else 0)
