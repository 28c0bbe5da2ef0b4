#!/usr/bin/env python3
"""Review s14r R14-3 (WRONG BYTES, exit 0, scrub clean): a degraded write's `FailedColumnCopy`
(the only true copy of the failed OSS's column, journaled and synced before the write's first
write) damaged as the journal's last record after a kill -9 of that write; the open cuts it
and refuses reads that need an unchecked decode, telling the user to `online` the OSS; that
`online` rewrites the OSS's stale column from the decode through the cut write's stripe (new
data, old parity) and acknowledged bytes read WRONG with exit 0, scrub clean afterwards.
Scene: raid5 4+1 (CODE=raid5, WPATH=rmw; also WPATH=wcl), 4 KiB unit; put f (30000 B); fail
OSS 1; one acknowledged 1000-byte write into each data column of stripe 0; a 3000-byte write
into column 2 killed -9 at durable call k (killshim); one bit of the journal's last record
flipped (as tail-flip-kill-sweep.py does); then `online --oss 1` (FIX=rebuild to compare);
then get f: each byte must be the acknowledged one (or, in the killed write's range, old or
new), or the read refused naming the loss.
Build the shim: gcc -O2 -shared -fPIC -o /tmp/s14r-killshim.so scripts/killshim.c -ldl
Usage: EXARAID=... [SHIM=...] [WPATH=rmw] [CODE=raid5] [FAIL2="4": more OSSs failed first] python3 repro-r14-3.py K1 K2
  (main 909a69f: raid5 rmw k=20 WRONG 2988 bytes; raid5 wcl k=20 (and k=18 in one of two runs) WRONG 597 bytes)"""
import os, sys, subprocess, shutil, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module
recs = import_module("journal-records").recs
E=os.environ.get("EXARAID", "exaraid"); SH=os.environ.get("SHIM", "/tmp/s14r-killshim.so"); R=os.environ.get("REPRO_DIR", "/tmp/s14r-r14-3")
WP=os.environ.get("WPATH","rmw"); CODE=os.environ.get("CODE","raid5"); FIX=os.environ.get("FIX","online")
def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=300)
stats={}
for k in range(int(sys.argv[1]), int(sys.argv[2])+1):
    rng = random.Random(5); A = rng.randbytes(30000); G = rng.randbytes(20000)
    d=R+"/s"; shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
    run(["init", d, "--oss", "5", "--code", *CODE.split(), "--stripe-unit", "4096", "--write-path", WP]); run(["put", d, "f"], A); run(["put", d, "g"], G)
    run(["fail", d, "--oss", "1"]); [run(["fail", d, "--oss", x]) for x in os.environ.get("FAIL2", "").split()]
    cur=bytearray(A)
    for c in range(4):  # one acknowledged degraded write into every data column of stripe 0
        W = rng.randbytes(1000); off=c*4096+100
        assert run(["write", d, "f", "--offset", str(off)], W).returncode == 0
        cur[off:off+1000]=W
    K = rng.randbytes(3000); ko = 2*4096+500
    p = run(["write", d, "f", "--offset", str(ko)], K, env={"LD_PRELOAD": SH, "KILLN": str(k)})
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
        okb = len(x)==len(cur) and all(x[i]==cur[i] or (ko<=i<ko+3000 and x[i]==K[i-ko]) for i in range(len(x)))
        if not okb:
            res="WRONG"; nb=[i for i in range(len(x)) if not (x[i]==cur[i] or (ko<=i<ko+3000 and x[i]==K[i-ko]))]
            print("k=%d last=%s %s rc=%d: f WRONG %d bytes in %d..%d; fix said: %s" % (k, kind, FIX, fx.returncode, len(nb), nb[0], nb[-1], (fx.stdout+fx.stderr).decode()[-300:]))
    else:
        print("k=%d last=%s: refused: %s" % (k, kind, gf.stderr.decode()[-250:]))
    stats[res]=stats.get(res,0)+1
print("DONE", WP, CODE, FIX, stats)
