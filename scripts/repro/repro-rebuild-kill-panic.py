#!/usr/bin/env python3
"""Repro (review s5r, finding R7; not CI): WCL, raid6 k=4 over 9 OSSs, 64 KiB unit, 4 files and 4
cached writes (crash-geom.py scenario `rebuild`, seed 7), THEN `fail --oss 1` (FAILAFTER: cached
bytes sit on the failed OSS), then `rebuild --oss 1` killed -9 at its K-th durable call; the next
command (and every later one) panics.
Usage: repro-rebuild-kill-panic.py [K]   (default 31; SCEN=flush: `rm f3` killed with OSS 2 failed, default K 29)
Env: EXARAID, SHIM (default /tmp/s5r-killshim.so; crash-geom.py's SHIM), S5R_DIR (default: $REPRO_DIR or a new temporary directory).
Prints the kill, then status's exit code and the panic line; exit 1 on a panic."""
import os, subprocess, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
os.environ.setdefault("SHIM", "/tmp/s5r-killshim.so")
os.environ.setdefault("EXARAID", "/work/target-s5r/release/exaraid")
SCEN = os.environ.get("SCEN", "rebuild")  # or flush: a killed `rm f3` (a settle) with OSS 2 failed
os.environ["FAILOSS"] = "1" if SCEN == "rebuild" else "2"
os.environ["FAILAFTER"] = "1"
K = int(sys.argv[1]) if len(sys.argv) > 1 else (31 if SCEN == "rebuild" else 29)
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg = type(sys)("cg")
src = open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n')
exec(compile(src, "cg", "exec"), cg.__dict__)
d = (os.environ.get("S5R_DIR") or scratch("s5r-rp-rkp"))
files, cmd, inp, finish, fail = cg.setup(SCEN, "raid6:4", 9, 65536, "wcl", 7, d)
p = cg.run(cmd, inp, kill_n=K)
print("store %s: rc %d %s" % (" ".join(cmd[:1] + cmd[2:]), p.returncode,
      [l for l in p.stderr.decode(errors="replace").splitlines() if "KILLSHIM" in l][:1]))
panicked = False
for c in (["status", d], ["get", d, "f1"], ["rebuild", d, "--oss", "1"]):
    q = subprocess.run([cg.E, "store"] + c, capture_output=True, env=dict(os.environ, RUST_BACKTRACE="0"))
    msg = [l for l in q.stderr.decode(errors="replace").splitlines() if "panicked" in l or "error" in l or l.startswith("  ")][:3]
    print("store %s: rc %d %s" % (c[0], q.returncode, msg))
    panicked |= q.returncode == 101
sys.exit(1 if panicked else 0)
