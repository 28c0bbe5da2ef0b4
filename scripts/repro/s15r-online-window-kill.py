#!/usr/bin/env python3
"""s15r review tool: `online` of an OSS that failed inside a delayed window (its window bytes
recorded LOST, read back by `online` from its cache zone), killed -9 at every durable call K,
then `online` again to the end: every byte of f must read as the model (the window's bytes
taken back, the rewrite after the failure kept), g untouched, scrub clean; a second failure
must still read. Variant REWRITE=1: part of the lost range written again while the OSS was
failed (after END), before the online.
Usage: s15r-online-window-kill.py K1-K2   Env: EXARAID, SHIM (killshim.so), CODE (raid6), D."""
import os, sys, subprocess, shutil, random
E = os.environ["EXARAID"]; SH = os.environ.get("SHIM", "/tmp/s15r-killshim.so")
R = os.environ.get("D", "/dev/shm/s15r-owk"); CODE = os.environ.get("CODE", "raid6").split()
k1, k2 = map(int, sys.argv[1].split("-"))
def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=120)
rng = random.Random(11); A = rng.randbytes(60000); G = rng.randbytes(30000)
d = R + "/s"; stats = {}
for k in range(k1, k2 + 1):
    shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
    assert run(["init", d, "--oss", "6", "--code", *CODE, "--stripe-unit", "4096", "--write-path", "delayed"]).returncode == 0
    run(["put", d, "f"], A); run(["put", d, "g"], G)
    m = bytearray(A)
    tok = run(["delayed", "start", d, "f"]).stdout.decode().strip()
    for off, n in ((100, 9000), (20000, 13000), (41000, 7000)):
        w = rng.randbytes(n); assert run(["write", d, "f", "--offset", str(off)], w).returncode == 0; m[off:off + n] = w
    assert run(["fail", d, "--oss", "1"]).returncode == 0
    e = run(["delayed", "end", d, tok])
    if os.environ.get("REWRITE") == "1":
        w = rng.randbytes(3000); p = run(["write", d, "f", "--offset", "21000"], w)
        assert p.returncode == 0, p.stderr; m[21000:24000] = w
    p = run(["online", d, "--oss", "1"], env={"LD_PRELOAD": SH, "KILLN": str(k)})
    if p.returncode != -9:
        print("k=%d: not killed (rc %d %s): done" % (k, p.returncode, p.stderr[:200])); break
    p2 = run(["online", d, "--oss", "1"])
    bad = []
    if p2.returncode != 0 and b"not recorded as failed" not in p2.stderr: bad.append("online again rc %d %s" % (p2.returncode, p2.stderr[:300]))
    gf = run(["get", d, "f"]); gg = run(["get", d, "g"])
    if gg.returncode != 0 or gg.stdout != G: bad.append("g rc %d %s" % (gg.returncode, "WRONG" if gg.returncode == 0 else gg.stderr[:150]))
    if gf.returncode == 0 and gf.stdout != bytes(m):
        x = gf.stdout; nd = sum(1 for i in range(min(len(x), len(m))) if x[i] != m[i])
        bad.append("f WRONG %d bytes (first %s)" % (nd, next((i for i in range(len(m)) if x[i] != m[i]), None)))
    elif gf.returncode != 0: bad.append("f rc %d %s" % (gf.returncode, gf.stderr[:300]))
    sc = run(["scrub", d])
    if sc.returncode != 0: bad.append("scrub rc %d %s" % (sc.returncode, sc.stdout[-200:]))
    run(["fail", d, "--oss", "3"]); gf = run(["get", d, "f"])
    if gf.returncode == 0 and gf.stdout != bytes(m): bad.append("degraded f WRONG")
    key = "WRONG" if any("WRONG" in b for b in bad) else ("refused" if bad else "ok")
    stats[key] = stats.get(key, 0) + 1
    if bad: print("k=%d: %s" % (k, " | ".join(str(b) for b in bad)), flush=True)
print("DONE online-window-kill %s REWRITE=%s: %s" % (CODE, os.environ.get("REWRITE", "0"), stats))
