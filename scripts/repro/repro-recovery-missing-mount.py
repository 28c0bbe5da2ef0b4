#!/usr/bin/env python3
"""Repro (review s4e, finding E13; not CI): rmw store (raid6 k=4 over 9 OSSs, 64 KiB, 4 files),
a write killed -9 at its K-th durable call (killshim), then the next command (`status`) recovers
while ONE OSS directory is missing (a dropped mount; raid6 tolerates 2); the mount comes back.
Usage: repro-recovery-missing-mount.py K MISSING [SECOND]   (env PATHW=wcl: the WCL path)
  8 6    -> acknowledged bytes OUTSIDE the killed write (228888..317937) read as lost
  8 0 7  -> after `fail --oss 7`, get f1 exits 0 with wrong bytes (recovery left OSS 0 stale)
Needs /tmp/s4e-killshim.so. Scratch: $REPRO_DIR/s4e-mnt4 (default: under a new temporary directory)."""
import os, sys, subprocess, shutil
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
K, MISSING = int(sys.argv[1]), int(sys.argv[2])
SECOND = int(sys.argv[3]) if len(sys.argv) > 3 else None
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg = type(sys)("cg")
exec(compile(open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n'), "cg", "exec"), cg.__dict__)
d = scratch("s4e-mnt4")
files, cmd, inp, finish, fail = cg.setup("write", "raid6:4", 9, 65536, os.environ.get("PATHW", "rmw"), 7, d)
print("killed write:", " ".join(cmd), "bytes", int(cmd[-1]), "..", int(cmd[-1]) + len(inp))
p = cg.run(cmd, inp, kill_n=K)
print("write rc", p.returncode, [l for l in p.stderr.decode().splitlines() if "KILLSHIM" in l])
shutil.move(d + "/oss-%d" % MISSING, d + "/away")
q = subprocess.run([cg.E, "store", "status", d], capture_output=True)
print("status with oss-%d missing (recovery) rc %d" % (MISSING, q.returncode))
shutil.move(d + "/away", d + "/oss-%d" % MISSING)
for b in cg.check(d, files, "mount back"):
    print(b)
if SECOND is not None:
    subprocess.run([cg.E, "store", "fail", d, "--oss", str(SECOND)], capture_output=True)
    for b in cg.check(d, files, "then OSS %d failed" % SECOND):
        print(b)
s = subprocess.run([cg.E, "store", "scrub", d], capture_output=True)
print("scrub rc", s.returncode, s.stdout.decode()[-300:])
