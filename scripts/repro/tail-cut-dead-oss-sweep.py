#!/usr/bin/env python3
# Review s12r tool (not CI). Build the shim: gcc -O2 -shared -fPIC -o /tmp/repro-r12-killshim.so scripts/killshim.c -ldl
"""R12 probe: journal tail cut (a bit flipped in the last record after a kill -9 of a write)
with an OSS gone at the next open (directory renamed away: missing). WCL / delayed / rmw.
An acknowledged write W1 (cached), then W2 over the same stripes killed at durable call K;
the last journal record's bit flipped; OSS X moved away; then `get f` must give W1's bytes
(W2's range: old or new per byte) or refuse; same after X comes back and after scrub.
Usage: cutdead.py K1-K2 [X,..]  Env: EXARAID SHIM REPRO_DIR WPATH CODE OSS"""
import os, sys, subprocess, shutil, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__))); from importlib import import_module; recs = import_module("journal-records").recs
E = os.environ.get("EXARAID", "exaraid"); SH = os.environ.get("SHIM", "/tmp/repro-r12-killshim.so")
R = os.environ.get("REPRO_DIR", "/tmp/repro-r12-cd"); WP = os.environ.get("WPATH", "wcl"); CODE = os.environ.get("CODE", "raid5")
N = int(os.environ.get("OSS", "5")); FLIP = os.environ.get("FLIP", "1") == "1"
def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=300)
rng = random.Random(7); old = rng.randbytes(70000); w1 = rng.randbytes(9000); w2 = rng.randbytes(9000)
O1, O2 = 2000, 6000
k1, k2 = map(int, sys.argv[1].split("-")); xs = [int(x) for x in sys.argv[2].split(",")] if len(sys.argv) > 2 else list(range(N))
stats = {}
for k in range(k1, k2 + 1):
    for x in xs:
        d = R + "/s"; shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
        ca = ["--code", CODE] + (["--k", "4", "--m", "2"] if CODE == "rs" else [])
        assert run(["init", d, "--oss", str(N), "--stripe-unit", "4096", "--write-path", WP] + ca).returncode == 0
        assert run(["put", d, "f"], old).returncode == 0
        if WP == "delayed": assert run(["delayed", "start", d, "f"]).returncode == 0
        assert run(["write", d, "f", "--offset", str(O1)], w1).returncode == 0
        p = run(["write", d, "f", "--offset", str(O2)], w2, env={"LD_PRELOAD": SH, "KILLN": str(k)})
        if p.returncode != -9: print("k=%d not killed" % k); sys.exit(0)
        b = bytearray(open(d + "/journal", "rb").read()); rs = recs(bytes(b))
        kind = rs[-1][2] if rs else "-"
        if FLIP and rs:
            at, ln = rs[-1][0], rs[-1][1]; b[at + 8 + ln // 2] ^= 0x04; open(d + "/journal", "wb").write(b)
        os.rename(d + "/oss-%d" % x, R + "/away")
        acked = bytearray(old); acked[O1:O1 + len(w1)] = w1
        def judge(got):
            if len(got) != len(acked): return "LEN"
            for i in range(len(got)):
                if got[i] != acked[i] and not (O2 <= i < O2 + len(w2) and got[i] == w2[i - O2]):
                    return "WRONG@%d" % i
            return "ok"
        g = run(["get", d, "f"]); v1 = judge(g.stdout) if g.returncode == 0 else "rc%d" % g.returncode
        os.rename(R + "/away", d + "/oss-%d" % x)
        g = run(["get", d, "f"]); v2 = judge(g.stdout) if g.returncode == 0 else "rc%d" % g.returncode
        s = run(["scrub", d]); g = run(["get", d, "f"]); v3 = judge(g.stdout) if g.returncode == 0 else "rc%d" % g.returncode
        line = "k=%d last=%s x=%d degraded-get=%s back-get=%s scrub rc=%d get=%s" % (k, kind, x, v1, v2, s.returncode, v3)
        bad = "WRONG" in line or "LEN" in line
        stats[bad] = stats.get(bad, 0) + 1
        if bad or os.environ.get("V"): print(line, flush=True)
        if bad and os.environ.get("STOP"): sys.exit(1)
print("DONE", stats)
