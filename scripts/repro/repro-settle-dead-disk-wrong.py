#!/usr/bin/env python3
"""Repro (review s5s, finding S2; not CI): WCL raid6 (k=4) over 6 OSSs, 64 KiB unit,
crash-geom.py setup `flush` seed 7 (4 files put, 4 writes into f1 sit in the cache), then
`rm f3` (which settles: moves cached bytes home) killed -9 at durable call K. OSS O's disk dies
for good (directory emptied); every command refuses (E13: recovery waits); the operator runs
`store fail --oss O` (E13's documented way out): recovery runs without OSS O. Then `get f1`
exits 0 with WRONG bytes (the acknowledged content differs), where it should return them or
fail naming lost ranges. Scrub afterwards, and the same kill with every OSS present, for
comparison.
Usage: repro-settle-dead-disk-wrong.py [K] [O]   (default K=35, O=0)
Env: EXARAID, SHIM (default /tmp/s5s-killshim.so), S5S_DIR (default: $REPRO_DIR or a new temporary directory), TEAR=1.
Prints what each step says and PROBLEM / CLEAN; exit 1 on PROBLEM."""
import os, sys, shutil
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
K = int(sys.argv[1]) if len(sys.argv) > 1 else 35
O = int(sys.argv[2]) if len(sys.argv) > 2 else 0
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg = type(sys)("cg"); src = open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n')
exec(compile(src, "cg", "exec"), cg.__dict__)
d = (os.environ.get("S5S_DIR") or scratch("s5s-sdw")) + "/s"
tear = bool(os.environ.get("TEAR"))
# 1. the same kill with every OSS present
files, cmd, inp, finish, fail = cg.setup("flush", "raid6", 6, 65536, "wcl", 7, d)
p = cg.run(cmd, inp, kill_n=K, tear=tear)
print("all OSSs: %s killed at %s" % (" ".join(cmd[:1] + cmd[2:]), p.stderr.decode(errors="replace").strip()[18:140]))
print("  check with every OSS:", cg.check(d, files, "all OSSs") or "every file right", "| scrub rc", cg.run(["scrub", d]).returncode)
# 2. the same kill, then OSS O dies for good
files, cmd, inp, finish, fail = cg.setup("flush", "raid6", 6, 65536, "wcl", 7, d)
p = cg.run(cmd, inp, kill_n=K, tear=tear)
assert p.returncode == -9, p.returncode
shutil.rmtree(d + "/oss-%d" % O); os.makedirs(d + "/oss-%d" % O)
g = cg.run(["get", d, "f1"])
print("OSS %d gone: get f1 before fail rc %d: %s" % (O, g.returncode, g.stderr.decode(errors="replace").strip()[:160]))
f = cg.run(["fail", d, "--oss", str(O)])
print("fail --oss %d rc %d: %s" % (O, f.returncode, (f.stdout + f.stderr).decode(errors="replace").strip()[:300]))
bad = cg.check(d, files, "after fail")
for b in bad:
    print("  " + b[:300])
s = cg.run(["scrub", d])
print("scrub rc %d: %s" % (s.returncode, s.stdout.decode(errors="replace").strip()[-300:]))
print("PROBLEM" if any("WRONG" in b for b in bad) else "CLEAN")
sys.exit(1 if any("WRONG" in b for b in bad) else 0)
