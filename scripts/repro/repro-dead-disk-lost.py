#!/usr/bin/env python3
"""Repro (review s5s, not CI): rmw raid6 k=4 over 9 OSSs, 64 KiB unit (crash-geom.py setup
`write`, seed 7): a write into f1 killed -9 at durable call K, then OSS O's disk dies for good
(directory emptied), `store fail --oss O` (E13's way out). Prints, per K, the call killed and
whether `fail` recorded acknowledged bytes LOST, and whether a store with every OSS (same kill)
needed nothing: kills AFTER every data and parity write of the cut write was synced still
record bytes of O (outside the killed write's range) lost, though the surviving columns are
consistent (the same kill with O present: recovery, scrub exit 0, every file right).
Usage: repro-dead-disk-lost.py [O] [K1,K2,..]  Env: EXARAID, SHIM (default /tmp/s5s-killshim.so),
WPATH (default rmw), S5S_DIR (default: $REPRO_DIR or a new temporary directory), CODE
(crash-geom.py's spelling, default raid6:4; rs 4+2: rs:4:2), NOSS (default 9), OVERWRITE=1
(session 7, s7c: an acknowledged write of other bytes over the same range first, so that on
WCL the killed write overwrites bytes its cache stripe holds)."""
import os, sys, subprocess, shutil
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
O = int(sys.argv[1]) if len(sys.argv) > 1 else 6
KS = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else list(range(1, 40))
WP = os.environ.get("WPATH", "rmw")
CODE = os.environ.get("CODE", "raid6:4")
NOSS = int(os.environ.get("NOSS", "9"))
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "crash-geom.py")
cg = type(sys)("cg"); src = open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n')
exec(compile(src, "cg", "exec"), cg.__dict__)
d = (os.environ.get("S5S_DIR") or scratch("s5s-ddl")) + "/s"


def setup():
    files, cmd, inp, finish, fail = cg.setup("write", CODE, NOSS, 65536, WP, 7, d)
    if os.environ.get("OVERWRITE"):
        off = int(cmd[cmd.index("--offset") + 1])
        pre = cg.rnd(777, len(inp))
        p = cg.run(cmd, pre)
        if p.returncode != 0:
            raise SystemExit("OVERWRITE pre-write failed: " + p.stderr.decode(errors="replace"))
        _, old, new = files["f1"]
        old = bytearray(old)
        if len(old) < off + len(pre):
            old.extend(b"\0" * (off + len(pre) - len(old)))
        old[off:off + len(pre)] = pre
        files["f1"] = ("mix", bytes(old), new)
    return files, cmd, inp, finish, fail


for k in KS:
    files, cmd, inp, finish, fail = setup()
    p = cg.run(cmd, inp, kill_n=k)
    where = p.stderr.decode(errors="replace").strip().replace("KILLSHIM: kill at ", "")[:110]
    if p.returncode != -9:
        print("K=%d not killed (rc %d)" % (k, p.returncode)); break
    # The same kill with every OSS present (a second identical setup: a copy of the store
    # would share the OSS directories, which the superblock names by absolute path)
    s = cg.run(["scrub", d])
    sb = [b for b in cg.check(d, files, "all") if "WRONG" in b or "rc" in b]
    files, cmd, inp, finish, fail = setup()
    p = cg.run(cmd, inp, kill_n=k)
    assert p.returncode == -9
    shutil.rmtree(d + "/oss-%d" % O); os.makedirs(d + "/oss-%d" % O)
    f = cg.run(["fail", d, "--oss", str(O)])
    lost = [l for l in f.stdout.decode().splitlines() if l.startswith("LOST")]
    bad = cg.check(d, {n: a for n, a in files.items()}, "k")
    print("K=%2d %-100s | all OSSs: scrub rc %d, get problems %d | dead %d: fail rc %d, %d LOST lines %s; get problems %d %s" % (
        k, where, s.returncode, len(sb), O, f.returncode, len(lost), lost[0][6:40] if lost else "", len(bad),
        "WRONG" if any("WRONG" in b for b in bad) else ""), flush=True)
    for b in bad[:4]:
        print("    ", b[:300], flush=True)
