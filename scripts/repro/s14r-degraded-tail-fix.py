#!/usr/bin/env python3
# Usage: EXARAID=... [SHIM=...] WPATH=rmw|wcl|delayed CODE=raid5 KCMD=write|flush|end|put|rm FIX=online|rebuild python3 s14r-degraded-tail-fix.py K1 K2
# s14r: degraded store (OSS 1 failed), a command killed -9 at durable call k, the journal's last
# record damaged (one bit), then FIX (online/rebuild) of OSS 1, then every file checked.
import os, sys, subprocess, shutil, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module
recs = import_module("journal-records").recs
E=os.environ.get("EXARAID", "exaraid"); SH=os.environ.get("SHIM", "/tmp/s14r-killshim.so"); R=os.environ.get("REPRO_DIR","/dev/shm/s14r-dg")
WP=os.environ.get("WPATH","rmw"); CODE=os.environ.get("CODE","raid5"); FIX=os.environ.get("FIX","online"); KC=os.environ.get("KCMD","write")
def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=300)
stats={}
for k in range(int(sys.argv[1]), int(sys.argv[2])+1):
    rng = random.Random(5); A = rng.randbytes(30000); G = rng.randbytes(20000)
    d=R+"/s"; shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
    run(["init", d, "--oss", "5", "--code", *CODE.split(), "--stripe-unit", "4096", "--write-path", WP]); run(["put", d, "f"], A); run(["put", d, "g"], G)
    tok = run(["delayed", "start", d, "f"]).stdout.decode().strip() if WP == "delayed" else None
    run(["fail", d, "--oss", "1"])
    cur=bytearray(A)
    for c in range(4):
        W = rng.randbytes(1000); off=c*4096+100
        q = run(["write", d, "f", "--offset", str(off)], W)
        if q.returncode == 0: cur[off:off+1000]=W
    K = rng.randbytes(3000); ko = 2*4096+500
    args = {"write": ["write", d, "f", "--offset", str(ko)], "flush": ["flush", d], "end": ["delayed", "end", d, tok or "x"],
            "put": ["put", d, "g"], "rm": ["rm", d, "g"]}[KC]
    p = run(args, K if KC == "write" else (rng.randbytes(20000) if KC == "put" else b""), env={"LD_PRELOAD": SH, "KILLN": str(k)})
    if p.returncode != -9: print("k=%d not killed: done"%k); break
    b = bytearray(open(d + "/journal", "rb").read()); rs = recs(bytes(b))
    if not rs: continue
    kind=rs[-1][2]
    at, ln = rs[-1][0], rs[-1][1]; b[at + 8 + ln // 2 - 2] ^= 0x08; open(d + "/journal", "wb").write(b)
    fx = run([FIX, d, "--oss", "1"])
    gf = run(["get", d, "f"])
    res = "refused" if gf.returncode else "ok"
    if gf.returncode == 0:
        x = gf.stdout
        kw = (ko, K) if KC == "write" else (0, b"")
        okb = len(x)==len(cur) and all(x[i]==cur[i] or (kw[0]<=i<kw[0]+len(kw[1]) and x[i]==kw[1][i-kw[0]]) for i in range(len(x)))
        if not okb:
            res="WRONG"; nb=[i for i in range(min(len(x),len(cur))) if not (x[i]==cur[i] or (kw[0]<=i<kw[0]+len(kw[1]) and x[i]==kw[1][i-kw[0]]))]
            print("k=%d last=%s %s rc=%d: f WRONG %d bytes (len %d vs %d) in %s" % (k, kind, FIX, fx.returncode, len(nb), len(x), len(cur), (nb[0], nb[-1]) if nb else "-"), flush=True)
    gg = run(["get", d, "g"])
    if gg.returncode == 0 and KC not in ("put", "rm") and gg.stdout != G: res="WRONG"; print("k=%d g WRONG" % k)
    stats[res]=stats.get(res,0)+1
print("DONE", KC, WP, CODE, FIX, stats, flush=True)
