#!/usr/bin/env python3
"""Repro (review s4e, finding E12; not CI): ONE transient read error (EIO) of a WCL cache zone
file during a settle (`rm f3`, which moves every cached byte home first) -> rm exits 0, no OSS is
recorded failed, and another file's acknowledged bytes read as zeros with exit 0, for good.
Usage: repro-settle-read-eio.py N   (N=1: the 1st read of an OSS object file fails: oss-0's cache)
Needs /tmp/s4e-eioshim.so (gcc -O2 -shared -fPIC -o /tmp/s4e-eioshim.so scripts/eioshim.c -ldl).
Setup = crash-geom.py scenario `flush` (raid6 k=4 over 9 OSSs, 64 KiB unit, wcl, 4 files put
(through the cache zone), 4 writes to f1). Scratch: $REPRO_DIR/s4e-flr (default: under a new temporary directory)."""
import importlib.util, os, sys, subprocess
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
N=int(sys.argv[1]); sys.argv=["x"]
here=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg=type(sys)("cg"); src=open(here).read().replace('\nif __name__ == "__main__":\n    main()\n','\n')
exec(compile(src,"cg","exec"), cg.__dict__)
os.environ["EIO"]="1"; os.environ["EIOREAD"]="1"
d=scratch("s4e-flr")
files, cmd, inp, finish, fail = cg.setup("flush", "raid6:4", 9, 65536, "wcl", 7, d)
st=subprocess.run([cg.E,"store","status",d],capture_output=True).stdout.decode()
print("\n".join(l for l in st.splitlines() if "waiting" in l))
print(cg.check(d, {k:v for k,v in files.items() if k!="f3"}, "before the rm"))
p=cg.run(cmd, inp, kill_n=N)
print(" ".join(cmd), "-> rc", p.returncode, p.stderr.decode()[:400])
st=subprocess.run([cg.E,"store","status",d],capture_output=True).stdout.decode()
print("\n".join(l for l in st.splitlines() if "FAILED" in l or "waiting" in l or "LOST" in l or "UNAVAIL" in l))
for b in cg.check(d, {k:v for k,v in files.items() if k!="f3"}, "after the rm"): print(b)
