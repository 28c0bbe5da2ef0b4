#!/usr/bin/env python3
"""Repro (review s4e, finding E13 on END; not CI): delayed window on f1 (raid6 k=4 over 9 OSSs,
64 KiB, 4 window writes); `delayed end` killed -9 at its K-th durable call; the next `status`
recovers while OSS o's directory is missing; the mount comes back; open windows are ended.
Usage: repro-end-missing-mount.py K o     (5 0 / 15 8: acked bytes "lost"; 30 8: wrong bytes exit 0)
Needs /tmp/s4e-killshim.so. Scratch: $REPRO_DIR/s4e-mnt9 (default: under a new temporary directory)."""
import os, sys, subprocess, shutil, json
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
k, o = int(sys.argv[1]), int(sys.argv[2])
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg = type(sys)("cg")
exec(compile(open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n'), "cg", "exec"), cg.__dict__)
d = scratch("s4e-mnt9")
files, cmd, inp, finish, fail = cg.setup("end", "raid6:4", 9, 65536, "delayed", 7, d)
p = cg.run(cmd, inp, kill_n=k)
print("END rc", p.returncode, [l for l in p.stderr.decode().splitlines() if "KILLSHIM" in l])
shutil.move(d + "/oss-%d" % o, d + "/away")
q = subprocess.run([cg.E, "store", "status", d], capture_output=True)
print("status with oss-%d missing (recovery) rc %d" % (o, q.returncode))
shutil.move(d + "/away", d + "/oss-%d" % o)
st = json.loads(subprocess.run([cg.E, "store", "status", d, "--json"], capture_output=True).stdout or b"{}")
for w in st.get("open_windows", []):
    print("END of the window left open rc", subprocess.run([cg.E, "store", "delayed", "end", d, w["token"]], capture_output=True).returncode)
st = json.loads(subprocess.run([cg.E, "store", "status", d, "--json"], capture_output=True).stdout or b"{}")
print("lost ranges on record:", len(st.get("lost_ranges", [])))
for b in cg.check(d, files, "mount back"):
    print(b[:300])
shutil.rmtree(d, ignore_errors=True)
