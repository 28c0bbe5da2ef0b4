#!/usr/bin/env python3
"""Review tool (engineer s8s, not CI): an I/O error records an OSS failed in the middle of a
command (write, flush/settle, END, rm), the disk was fine after all: `online` it, then check every
byte, scrub, and fail the other m OSSs (reads decode through the onlined OSS's columns).
Per case: delayed (WPATH) raid6 store with window bytes cached, COMMAND run with the eioshim's
FAILN=N (FAILSTICKY=1: that OSS's later calls fail too, within the command), then `online` of
every OSS `status --json` lists failed (optionally killed by the killshim at KILLN=KO and rerun).
Usage: eio-online.py COMMAND N1,N2,..   COMMAND: flush|write|end|rm
Env: EXARAID, EIOSHIM, SHIM, KO (kill call for the first online), REPRO_DIR, WPATH, SYNC=1 (SYNCFAILN)."""
import os, sys, subprocess, shutil, random, json
E = os.environ.get("EXARAID", "/work/share8/exaraid-s8int")
EIO = os.environ.get("EIOSHIM", "/tmp/s8s-eioshim.so"); SH = os.environ.get("SHIM", "/tmp/s8s-killshim.so")
R = os.environ.get("REPRO_DIR", "/tmp/s8s-eo"); WP = os.environ.get("WPATH", "delayed")
def run(a, inp=b"", env=None): return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env, timeout=120)
def txt(p): return (p.stdout + p.stderr).decode(errors="replace").replace("\n", " | ")[:240]
def setup(d):
    rng = random.Random(5); exp = {}
    assert run(["init", d, "--oss", "6", "--code", "raid6", "--stripe-unit", "4096", "--write-path", WP]).returncode == 0
    for f in ("f0", "f1", "f2", "f3"):
        b = rng.randbytes(50000); run(["put", d, f], b); exp[f] = bytearray(b)
    tok = run(["delayed", "start", d, "f1"]).stdout.decode().strip() if WP == "delayed" else None
    for f, off, ln in (("f1", 5000, 9000), ("f1", 30000, 12000), ("f2", 100, 7000)):
        w = rng.randbytes(ln); assert run(["write", d, f, "--offset", str(off)], w).returncode == 0
        exp[f][off:off + ln] = w
    return exp, tok
def lost(d):
    st = json.loads(run(["status", d, "--json"]).stdout)
    return st, [(x["file"], x["offset_bytes"], x["offset_bytes"] + x["len_bytes"]) for x in st.get("lost_ranges", [])]
def check(d, exp, tag, bad):
    st, ls = lost(d)
    for f, b in exp.items():
        g = run(["get", d, f])
        if g.returncode == 0:
            if g.stdout != bytes(b): bad.append("%s WRONG BYTES get %s" % (tag, f))
            continue
        for off in range(0, len(b), 4096):
            q = run(["read", d, f, "--offset", str(off), "--length", str(min(4096, len(b) - off))])
            inl = any(x == f and a < off + 4096 and off < z for x, a, z in ls)
            if q.returncode == 0 and q.stdout != bytes(b[off:off + 4096]): bad.append("%s WRONG BYTES read %s @%d" % (tag, f, off))
            elif q.returncode != 0 and not inl: bad.append("%s %s @%d refused, not on record: %s" % (tag, f, off, txt(q)[:160]))
    return st, ls
cmd = sys.argv[1]; ns = [int(x) for x in sys.argv[2].split(",")]
shutil.rmtree(R, ignore_errors=True); os.makedirs(R); nb = 0; nonl = 0
for n in ns:
    d = os.path.join(R, "n%d" % n); exp, tok = setup(d); bad = []; notes = []
    env = dict(os.environ, LD_PRELOAD=EIO, FAILSTICKY=os.environ.get("FAILSTICKY", "1"))
    env["SYNCFAILN" if os.environ.get("SYNC") else "FAILN"] = str(n)
    a = {"flush": ["flush", d], "write": ["write", d, "f3", "--offset", "1000"], "end": ["delayed", "end", d, tok or "x"], "rm": ["rm", d, "f0"]}[cmd]
    w = random.Random(n).randbytes(20000)
    p = run(a, w if cmd == "write" else b"", env=env)
    if p.returncode == 0:
        if cmd == "write": exp["f3"][1000:21000] = w
        if cmd == "rm": del exp["f0"]
    elif cmd == "rm" and run(["ls", d]).stdout.find(b"f0") < 0: del exp["f0"]
    notes.append("cmd rc=%d %s" % (p.returncode, txt(p)[:200]))
    if cmd == "write" and p.returncode != 0:
        # partially written: accept old or new per byte; take the current bytes where they are one of the two
        g = run(["get", d, "f3"])
        if g.returncode == 0:
            for i in range(1000, 21000):
                if g.stdout[i] not in (exp["f3"][i], w[i - 1000]): bad.append("WRONG BYTE f3 @%d after the failed write" % i); break
            exp["f3"] = bytearray(g.stdout)
    st, ls = check(d, exp, "after-cmd", bad)
    failed = [o["index"] for o in st.get("oss", []) if not o.get("healthy")]
    for x in failed:
        if os.environ.get("KO"):
            run(["online", d, "--oss", str(x)], env=dict(os.environ, LD_PRELOAD=SH, KILLN=os.environ["KO"]))
        q = run(["online", d, "--oss", str(x)])
        notes.append("online %d rc=%d %s" % (x, q.returncode, txt(q)[:200]))
        nonl += q.returncode == 0
    check(d, exp, "after-online", bad)
    sc = run(["scrub", d])
    if sc.returncode != 0: notes.append("scrub rc=%d %s" % (sc.returncode, txt(sc)[-200:]))
    for o in [i for i in range(6) if i not in failed][:2]: run(["fail", d, "--oss", str(o)])
    check(d, exp, "others-failed", bad)
    if bad: nb += 1
    if bad or os.environ.get("V"): print("N=%d failed=%s %s\n   %s" % (n, failed, " ; ".join(bad[:4]), "\n   ".join(notes)), flush=True)
    shutil.rmtree(d, ignore_errors=True)
print("DONE %s %s cases %d bad %d onlined %d" % (cmd, WP, len(ns), nb, nonl))
