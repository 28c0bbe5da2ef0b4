#!/usr/bin/env python3
"""Repro (review s4e, finding E12, the common trigger; not CI): an OSS directory missing for a while
(a mount that dropped) while `rm` settles a WCL store's cache: rm exits 0, nothing is recorded, and
once the directory is back another file's acknowledged bytes read as zeros with exit 0 (docs promise
"once the directories are back the store works as before").
Usage: repro-missing-mount-settle.py      Scratch: $REPRO_DIR/s4e-mnt2 (default: under a new temporary directory). EXARAID: the binary (via crash-geom.py)."""
import os, sys, subprocess, shutil
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
sys.argv=["x"]
here=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg=type(sys)("cg"); src=open(here).read().replace('\nif __name__ == "__main__":\n    main()\n','\n')
exec(compile(src,"cg","exec"), cg.__dict__)
d=scratch("s4e-mnt2")
files, cmd, inp, finish, fail = cg.setup("flush", "raid6:4", 9, 65536, "wcl", 7, d)
st=subprocess.run([cg.E,"store","status",d],capture_output=True).stdout.decode()
print("\n".join(l for l in st.splitlines() if "waiting" in l))
shutil.move(d+"/oss-0", d+"/oss-0.away")      # the mount of OSS 0 is missing for a while
p=cg.run(cmd, inp)
print(" ".join(cmd), "with oss-0 missing -> rc", p.returncode, p.stderr.decode()[:300])
st=subprocess.run([cg.E,"store","status",d],capture_output=True).stdout.decode()
print("\n".join(l for l in st.splitlines() if "FAILED" in l or "UNAVAIL" in l or "waiting" in l or "LOST" in l))
shutil.move(d+"/oss-0.away", d+"/oss-0")      # the mount is back
st=subprocess.run([cg.E,"store","status",d],capture_output=True).stdout.decode()
print("back:", "\n".join(l for l in st.splitlines() if "FAILED" in l or "UNAVAIL" in l or " 0 " in l[:8]))
files["f3"] = [None] if p.returncode == 0 else files["f3"]
for b in cg.check(d, files, "after the mount came back"): print(b)
s=subprocess.run([cg.E,"store","scrub",d],capture_output=True); print("scrub rc", s.returncode, s.stdout.decode()[-300:])
