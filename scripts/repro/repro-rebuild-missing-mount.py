#!/usr/bin/env python3
"""Repro (review s4e, finding E12 via rebuild; not CI): rs 8+3 over 13 OSSs, 64 KiB, wcl, 4 files,
OSS 1 failed, 4 writes (cached); `rebuild --oss 1` runs while ANOTHER OSS directory (o) is missing
(a dropped mount; 2 down of tolerance 3): rebuild exits 0; once the mount is back, acknowledged
bytes of f0/f1 read wrong with exit 0.
Usage: repro-rebuild-missing-mount.py [o ...]   (default 0 3 5 7)   Scratch: $REPRO_DIR/s4e-mnt8 (default: under a new temporary directory)."""
import os, sys, subprocess, shutil
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
osses = [int(a) for a in sys.argv[1:]] or [0, 3, 5, 7]
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg = type(sys)("cg")
exec(compile(open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n'), "cg", "exec"), cg.__dict__)
d = scratch("s4e-mnt8")
for o in osses:
    files, cmd, inp, finish, fail = cg.setup("rebuild", "rs:8:3", 13, 65536, "wcl", 7, d)
    shutil.move(d + "/oss-%d" % o, d + "/away")
    p = subprocess.run([cg.E, "store"] + cmd, capture_output=True)
    shutil.move(d + "/away", d + "/oss-%d" % o)
    bad = cg.check(d, files, "after the mount is back")
    print("oss-%d missing during `rebuild --oss 1`: rc %d %s" % (o, p.returncode, p.stderr.decode()[:100].strip()))
    for b in bad:
        print("   ", b[:200])
shutil.rmtree(d, ignore_errors=True)
