#!/usr/bin/env python3
"""Repro (review s8r, not CI) of R8-4 on an array code, WRONG BYTES with exit 0: xcode p=5 over
6 OSSs, 4 KiB unit, rmw, the scripts/multifail-kill.py `write` setup with seed 403 (4 files;
OSS 0 failed first; 4 acknowledged writes into f1); `write f1 --offset 11674` (10707 bytes)
killed -9 at its durable call N (default 14: a torn parity pwrite on OSS 3); OSS 3's disk dies
before anything reopens the store (directory emptied); `store fail --oss 3` (rc 0, records no
loss); `get f1` rc 0 returns 4,064 bytes of 16384..20480 that are neither the old nor the new
bytes of the cut write (its range must read old or new per byte).
Without any OSS failed first (FAILS=): the same at N = 10, 13, 16 (1,881 bytes of 16384..18284);
CODE=dcode:5 FAILS= N=11: 4,064 bytes.
Usage: repro-xcode-dead-torn.py [N] [TRIES]   Env: EXARAID, SHIM (scripts/killshim.c built),
REPRO_DIR, CODE (default xcode:5), NOSS (6), DEAD (the dead OSS, 3), FAILS (OSSs failed first, default 0; empty: none), SEED (403), WP (rmw). Prints one line per try; stops at the first wrong get."""
import os, sys, shutil, importlib.util
os.environ.setdefault("EXARAID", "/work/target-s8r/release/exaraid"); os.environ.setdefault("SHIM", "/tmp/s8r-killshim.so")
spec = importlib.util.spec_from_file_location("mf", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "multifail-kill.py"))
mf = importlib.util.module_from_spec(spec); spec.loader.exec_module(mf); cg = mf.cg
n = int(sys.argv[1]) if len(sys.argv) > 1 else 14; tries = int(sys.argv[2]) if len(sys.argv) > 2 else 3; dead = int(os.environ.get("DEAD", "3"))
d = os.path.join(os.environ.get("REPRO_DIR") or cg.scratch("s8r-xdt"), "s")
for t in range(tries):
    files, cmd, inp, finish, note = mf.setup("write", os.environ.get("CODE", "xcode:5"), int(os.environ.get("NOSS", "6")), 4096, os.environ.get("WP", "rmw"), int(os.environ.get("SEED", "403")), d,
                                          [int(x) for x in os.environ.get("FAILS", "0").split(",") if x])
    off = int(cmd[cmd.index("--offset") + 1])
    p = cg.run(cmd, inp, kill_n=n, tear=True)
    where = p.stderr.decode().strip()[:120]
    shutil.rmtree(d + "/oss-%d" % dead); os.makedirs(d + "/oss-%d" % dead)
    q = cg.run(["fail", d, "--oss", str(dead)])
    g = cg.run(["get", d, "f1"])
    _, old, new = files["f1"]
    bad = [i for i in range(min(len(g.stdout), len(old))) if g.stdout[i] != old[i] and g.stdout[i] != new[i]] if g.returncode == 0 else []
    outside = [i for i in bad if not (off <= i < off + len(inp))]
    print("try %d: %s | fail rc %d | get rc %d | write %d..%d | bad %d (outside the write %d) first %s last %s" % (
        t, where, q.returncode, g.returncode, off, off + len(inp), len(bad), len(outside), bad[:1], bad[-1:]), flush=True)
    if bad:
        print(q.stdout.decode(), q.stderr.decode()[-300:])
        break
