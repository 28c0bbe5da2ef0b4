#!/usr/bin/env python3
"""Review tool (engineer s8s, not CI): s8f's rebuild that skips never-written elements (holes).
Per round: init (WPATH), sparse files (writes at random offsets far apart, a delayed window on
one), `fail X` (before or after some writes), more sparse writes, `rebuild X` (in place or --to a
new dir; optionally killed by the killshim at call KILLN and rerun), then: every file reads
exactly, scrub exit 0, then the other m OSSs failed: every file reads exactly again.
Usage: rebuild-holes-fuzz.py CODE ROUNDS [seed0]   Env: EXARAID, REPRO_DIR, WPATH (rmw|wcl|delayed),
SHIM + KILL=1 (kill the rebuild at a random call, then rerun)."""
import os, sys, subprocess, shutil, random
E = os.environ.get("EXARAID", "/work/share8/exaraid-s8int")
ROOT = os.environ.get("REPRO_DIR", "/tmp/s8s-rh"); WP = os.environ.get("WPATH", "rmw"); UNIT = 4096
def run(a, inp=b"", env=None): return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env, timeout=120)
def cargs(spec):
    p = spec.split(":")
    if p[0] == "rs": return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[2]), int(p[1]) + int(p[2])
    return ["--code", p[0]], (1 if p[0] == "raid5" else 2), (5 if p[0] == "raid5" else 6)
def check(d, exp, bad, tag):
    for name, b in exp.items():
        g = run(["get", d, name])
        if g.returncode != 0 and b"only copy in its cache zone" in g.stderr:
            for off in range(0, len(b), UNIT):
                q = run(["read", d, name, "--offset", str(off), "--length", str(min(UNIT, len(b) - off))])
                if q.returncode == 0 and q.stdout != bytes(b[off:off + UNIT]): bad.append("%s WRONG BYTES read %s @%d" % (tag, name, off))
        elif g.returncode != 0: bad.append("%s get %s rc=%d %s" % (tag, name, g.returncode, g.stderr.decode(errors="replace")[:200]))
        elif g.stdout != bytes(b):
            i = next((i for i in range(min(len(b), len(g.stdout))) if g.stdout[i] != b[i]), None)
            bad.append("%s WRONG BYTES %s len %d/%d first diff %s" % (tag, name, len(g.stdout), len(b), i))
def one(code, seed):
    ca, m, n = cargs(code); r = random.Random(seed); bad = []
    d = os.path.join(ROOT, "r%d" % seed); shutil.rmtree(d, ignore_errors=True); shutil.rmtree(d + "-new", ignore_errors=True)
    assert run(["init", d, "--oss", str(n), "--stripe-unit", str(UNIT), "--write-path", WP] + ca).returncode == 0
    exp = {}
    def wr(name, off, w):
        if run(["write", d, name, "--offset", str(off)], w).returncode == 0:
            f = exp.setdefault(name, bytearray())
            if len(f) < off + len(w): f.extend(b"\0" * (off + len(w) - len(f)))
            f[off:off + len(w)] = w
    if WP == "delayed": run(["delayed", "start", d, "s1"])
    for i in range(r.randrange(3, 9)):
        wr(r.choice(["s0", "s1", "s2"]), r.randrange(0, UNIT * 200), r.randbytes(r.randrange(1, UNIT * 2)))
    X = r.randrange(n); run(["fail", d, "--oss", str(X)])
    for i in range(r.randrange(0, 4)):
        wr(r.choice(["s0", "s1", "s3"]), r.randrange(0, UNIT * 200), r.randbytes(r.randrange(1, UNIT * 2)))
    to = []
    if r.random() < 0.5: to = ["--to", d + "-new"]
    if os.environ.get("KILL"):
        env = dict(os.environ, LD_PRELOAD=os.environ["SHIM"], KILLN=str(r.randrange(1, 80)))
        run(["rebuild", d, "--oss", str(X)] + to, env=env)
    p = run(["rebuild", d, "--oss", str(X)] + to)
    if p.returncode != 0 and b"not recorded as failed" not in p.stderr and b"is healthy" not in p.stderr:
        bad.append("rebuild rc=%d %s" % (p.returncode, p.stderr.decode(errors="replace")[:200]))
    lost = run(["status", d]).stdout
    check(d, exp, bad, "after-rebuild")
    s = run(["scrub", d])
    if s.returncode != 0 and not (s.returncode == 2 and b"LOST:" in s.stdout and b"mismatches: 0" in s.stdout and b"corrupt elements: 0" in s.stdout): bad.append("scrub rc=%d %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
    others = [i for i in range(n) if i != X]; r.shuffle(others)
    for o in others[:m]: run(["fail", d, "--oss", str(o)])
    check(d, exp, bad, "others-failed(X=%d)" % X)
    shutil.rmtree(d, ignore_errors=True); shutil.rmtree(d + "-new", ignore_errors=True)
    return bad
code, rounds = sys.argv[1], int(sys.argv[2]); s0 = int(sys.argv[3]) if len(sys.argv) > 3 else 1
os.makedirs(ROOT, exist_ok=True); nb = 0
for s in range(s0, s0 + rounds):
    try: b = one(code, s)
    except Exception as ex: b = ["EXC %r" % ex]
    for x in b: print("seed %d BAD %s" % (s, x), flush=True)
    nb += bool(b)
print("%s %s rounds %d bad %d" % (code, WP, rounds, nb))
