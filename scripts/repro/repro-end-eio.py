#!/usr/bin/env python3
"""Repro (review s4e, finding E11; not CI): END of a delayed window during which an OSS write fails
(EIO, injected by scripts/eioshim.c at the N-th durable call) exits 0, although the store then
lists bytes of that window as LOST (their only copy was on the OSS the failed write marked failed).
Usage: repro-end-eio.py N   (N=8 or 11: the EIO hits a parity write of END on OSS 1)
Needs /tmp/s4e-eioshim.so (gcc -O2 -shared -fPIC -o /tmp/s4e-eioshim.so scripts/eioshim.c -ldl).
Setup = crash-geom.py scenario `end` (raid6 k=4 over 9 OSSs, 64 KiB unit, delayed, 4 files,
START on f1, 4 writes in the window, OSS 3 failed before END). Scratch: $REPRO_DIR/s4e-endeio (default: under a new temporary directory)."""
import importlib.util, os, sys, subprocess
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
spec = importlib.util.spec_from_file_location("cg", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py") + "")
cg = importlib.util.module_from_spec(spec); N=int(sys.argv[1]); sys.argv=["x"]
src=open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py") + "").read().replace('\nif __name__ == "__main__":\n    main()\n','\n')
exec(compile(src,"cg","exec"), cg.__dict__)
os.environ["FAILOSS"]="3"; os.environ["EIO"]="1"
d=scratch("s4e-endeio")
files, cmd, inp, finish, fail = cg.setup("end", "raid6:4", 9, 65536, "delayed", 7, d)
st=subprocess.run([cg.E,"store","status",d],capture_output=True).stdout.decode()
print("\n".join(l for l in st.splitlines() if "window" in l or "LOST" in l))
p=cg.run(cmd, inp, kill_n=N)
print("END rc", p.returncode, p.stderr.decode()[:600])
st=subprocess.run([cg.E,"store","status",d],capture_output=True).stdout.decode()
print("\n".join(l for l in st.splitlines() if "window" in l or "LOST" in l or "FAILED" in l))
print(" ".join(cmd))
