#!/usr/bin/env python3
"""Repro (review s4e, finding E12 in recovery; not CI): kill -9 a WCL write at its K-th durable
call (killshim), then open the store with `status` while the N-th read of an OSS object file fails
with EIO (eioshim): recovery's settle skips the OSS without recording it, and acknowledged bytes
read wrong with exit 0 afterwards. Usage: repro-recovery-read-eio.py N K   (e.g. 30 12)
Needs /tmp/s4e-killshim.so and /tmp/s4e-eioshim.so (see their headers). Scratch: $REPRO_DIR/s4e-rec (default: under a new temporary directory)."""
import os, sys, subprocess
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
N=int(sys.argv[1]); K=int(sys.argv[2]); sys.argv=["x"]
here=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg=type(sys)("cg"); src=open(here).read().replace('\nif __name__ == "__main__":\n    main()\n','\n')
exec(compile(src,"cg","exec"), cg.__dict__)
d=scratch("s4e-rec")
files, cmd, inp, finish, fail = cg.setup("write", "raid6:4", 9, 65536, "wcl", 7, d)
p=cg.run(cmd, inp, kill_n=K)   # killed write (killshim)
print("killed write rc", p.returncode, [l for l in p.stderr.decode().splitlines() if "KILLSHIM" in l])
env=dict(os.environ, LD_PRELOAD="/tmp/s4e-eioshim.so", READFAILN=str(N))
q=subprocess.run([cg.E,"store","status",d],capture_output=True,env=env)
print("status (recovery with read EIO %d) rc"%N, q.returncode, [l for l in q.stderr.decode().splitlines()][:3])
for b in cg.check(d, files, "after recovery"): print(b)
