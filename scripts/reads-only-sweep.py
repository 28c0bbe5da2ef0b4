#!/usr/bin/env python3
"""Review tool (engineer s8s, not CI): s8d's open for reads only. A delayed (or wcl) store with
cached window bytes; `flush` killed -9 at durable call K (killshim) so a settle is on record;
then, with the eioshim failing the J-th durable call of each command (FAILERRNO, default
ENOSPC, FAILSTICKY=1: the disk keeps failing), the next commands: get of every file (must be
the acked bytes, or refused naming a stripe), status, a write (must be refused clearly, exit
1), flush; then without the shim: get (exact), scrub (0). Prints every case not clean.
Usage: reads-only-sweep.py K1,K2,.. J1,J2,..   Env: EXARAID, SHIM, EIOSHIM, REPRO_DIR, WPATH, CODE."""
import os, sys, subprocess, shutil, random
E = os.environ.get("EXARAID", "/work/share8/exaraid-s8int")
SH = os.environ.get("SHIM", "/tmp/s8s-killshim.so"); EIO = os.environ.get("EIOSHIM", "/tmp/s8s-eioshim.so")
R = os.environ.get("REPRO_DIR", "/tmp/s8s-ros"); WP = os.environ.get("WPATH", "delayed"); CODE = os.environ.get("CODE", "raid6")
def run(a, inp=b"", env=None): return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env, timeout=120)
def txt(p): return (p.stdout + p.stderr).decode(errors="replace").replace("\n", " | ")[:220]
def setup(d):
    rng = random.Random(5); exp = {}
    assert run(["init", d, "--oss", "6", "--code", CODE, "--stripe-unit", "4096", "--write-path", WP]).returncode == 0
    for f in ("f0", "f1", "f2"):
        b = rng.randbytes(50000); run(["put", d, f], b); exp[f] = bytearray(b)
    if WP == "delayed": run(["delayed", "start", d, "f1"])
    for f, off, ln in (("f1", 5000, 9000), ("f1", 30000, 12000), ("f2", 100, 7000)):
        w = rng.randbytes(ln); assert run(["write", d, f, "--offset", str(off)], w).returncode == 0
        exp[f][off:off + ln] = w
    return exp
ks = [int(x) for x in sys.argv[1].split(",")]; js = [int(x) for x in sys.argv[2].split(",")]
shutil.rmtree(R, ignore_errors=True); os.makedirs(R); nro = nbad = n = 0
for k in ks:
    for j in js:
        n += 1; d = os.path.join(R, "k%dj%d" % (k, j)); exp = setup(d); bad = []; out = []
        p = run(["flush", d], env=dict(os.environ, LD_PRELOAD=SH, KILLN=str(k)))
        if p.returncode != -9: out.append("flush not killed"); 
        env = dict(os.environ, LD_PRELOAD=EIO, FAILN=str(j), FAILERRNO=os.environ.get("FAILERRNO", "ENOSPC"), FAILSTICKY=os.environ.get("FAILSTICKY", "1"))
        ro = False
        for f, b in exp.items():
            g = run(["get", d, f], env=env)
            ro = ro or b"reads only" in g.stderr
            if g.returncode == 0 and g.stdout != bytes(b): bad.append("WRONG BYTES get %s (shim)" % f)
            elif g.returncode not in (0, 1): bad.append("get %s rc=%d %s" % (f, g.returncode, txt(g)))
            elif g.returncode == 1: out.append("get %s rc=1 %s" % (f, txt(g)))
        s = run(["status", d], env=env)
        if s.returncode not in (0, 1, 2): bad.append("status rc=%d %s" % (s.returncode, txt(s)))
        w = run(["write", d, "f0", "--offset", "0"], b"xyz", env=env)
        if w.returncode == 0: exp["f0"][0:3] = b"xyz"
        elif w.returncode != 1: bad.append("write rc=%d %s" % (w.returncode, txt(w)))
        else: out.append("write rc=1 %s" % txt(w)[:160])
        nro += ro
        for f, b in exp.items():
            g = run(["get", d, f])
            if g.returncode == 0 and g.stdout != bytes(b): bad.append("WRONG BYTES get %s after" % f)
            elif g.returncode != 0: bad.append("get %s after rc=%d %s" % (f, g.returncode, txt(g)))
        sc = run(["scrub", d])
        if sc.returncode != 0 and not any(w in sc.stdout for w in (b"FAILED: OSS", b"MISSING: OSS", b"UNAVAILABLE: OSS")): bad.append("scrub rc=%d %s" % (sc.returncode, txt(sc)))
        if bad: nbad += 1; print("K=%d J=%d %s (read-only seen %s)\n   %s" % (k, j, " ; ".join(bad), ro, "\n   ".join(out)), flush=True)
        elif os.environ.get("V"): print("K=%d J=%d ok ro=%s %s" % (k, j, ro, " // ".join(out)[:300]), flush=True)
        shutil.rmtree(d, ignore_errors=True)
print("DONE %s %s cases %d bad %d read-only-seen %d" % (CODE, WP, n, nbad, nro))
