#!/usr/bin/env python3
"""Review tool (engineer s8s, not CI): s8d's read-only open after a settle that failed part
way. A delayed (or wcl) raid6 store with window bytes cached; `flush` with the FAILN-th durable
call failing (eioshim; FAILSTICKY from env, default 0), for FAILN in 1..N; then: status, get
(must be the acked bytes or a clear refusal), a write (accepted or refused clearly), reopen
without the shim: flush, get, scrub, write, get. Prints every non-clean case.
Usage: settle-eio-ro.py N   Env: EXARAID, EIOSHIM, REPRO_DIR, WPATH (delayed), SYNC=1 (SYNCFAILN
instead of FAILN), CODE (raid6|raid5)."""
import os, sys, subprocess, shutil, random
E = os.environ.get("EXARAID", "/work/share8/exaraid-s8int")
SH = os.environ.get("EIOSHIM", "/tmp/s8s-eioshim.so")
R = os.environ.get("REPRO_DIR", "/tmp/s8s-ro")
WP = os.environ.get("WPATH", "delayed")
CODE = os.environ.get("CODE", "raid6")
def run(a, inp=b"", env=None):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env, timeout=120)
def txt(p): return (p.stdout + p.stderr).decode(errors="replace").replace("\n", " | ")[:260]
def setup(base):
    rng = random.Random(5)
    assert run(["init", base, "--oss", "6", "--code", CODE, "--stripe-unit", "4096", "--write-path", WP]).returncode == 0
    exp = {}
    for f in ("f0", "f1", "f2"):
        b = rng.randbytes(50000); run(["put", base, f], b); exp[f] = bytearray(b)
    if WP == "delayed":
        run(["delayed", "start", base, "f1"])
    for off, ln in ((5000, 9000), (30000, 12000)):
        w = rng.randbytes(ln); assert run(["write", base, "f1", "--offset", str(off)], w).returncode == 0
        exp["f1"][off:off + ln] = w
    w = rng.randbytes(7000); assert run(["write", base, "f2", "--offset", "100"], w).returncode == 0
    exp["f2"][100:7100] = w
    return exp
shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
clean = 0
for n in range(1, int(sys.argv[1]) + 1):
    d = os.path.join(R, "c%d" % n); shutil.rmtree(d, ignore_errors=True); exp = setup(d)
    env = dict(os.environ, LD_PRELOAD=SH, FAILSTICKY=os.environ.get("FAILSTICKY", "0"))
    env["SYNCFAILN" if os.environ.get("SYNC") else "FAILN"] = str(n)
    p = run(["flush", d], env=env)
    out = ["flush rc=%d %s" % (p.returncode, txt(p)[:200])]
    bad = []
    for f, b in exp.items():
        g = run(["get", d, f])
        if g.returncode == 0 and g.stdout != bytes(b): bad.append("WRONG BYTES get %s after failed flush" % f)
        elif g.returncode != 0: out.append("get %s rc=%d %s" % (f, g.returncode, txt(g)))
    s = run(["status", d]); out.append("status rc=%d" % s.returncode)
    if s.returncode not in (0, 2): bad.append("status rc=%d %s" % (s.returncode, txt(s)))
    wq = run(["write", d, "f0", "--offset", "0"], b"xyz")
    if wq.returncode == 0: exp_f0 = bytearray(exp["f0"]); exp_f0[0:3] = b"xyz"
    else: exp_f0 = exp["f0"]; out.append("write rc=%d %s" % (wq.returncode, txt(wq)))
    if wq.returncode not in (0, 1): bad.append("write rc=%d %s" % (wq.returncode, txt(wq)))
    e2 = dict(exp); e2["f0"] = exp_f0
    fl = run(["flush", d]); out.append("flush2 rc=%d %s" % (fl.returncode, txt(fl)[:150]))
    for f, b in e2.items():
        g = run(["get", d, f])
        if g.returncode == 0 and g.stdout != bytes(b): bad.append("WRONG BYTES get %s after reopen" % f)
        elif g.returncode != 0: bad.append("get %s after reopen rc=%d %s" % (f, g.returncode, txt(g)))
    sc = run(["scrub", d])
    if sc.returncode != 0: bad.append("scrub rc=%d %s" % (sc.returncode, txt(sc)))
    if bad or any("rc=1" in o or "rc=2" in o for o in out):
        print("N=%d %s\n   %s" % (n, " ; ".join(bad) or "ok-after", "\n   ".join(out)), flush=True)
    if not bad: clean += 1
    shutil.rmtree(d, ignore_errors=True)
print("DONE %s %s cases %s bad %d" % (CODE, WP, sys.argv[1], int(sys.argv[1]) - clean))
