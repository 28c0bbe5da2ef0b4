#!/usr/bin/env python3
"""Review tool (engineer s8s, not CI): repeated fail/online cycles of one or more OSSs with windows
on several files, optional damage (DAMAGE=1: a few bytes of the failed OSS's cache file
overwritten before `online`, a bad sector) and optional kills of `online` (SHIM + KILL=1). Every
byte checked after each cycle against the acked model (lost ranges must refuse, never read other
bytes). Found S8-3. Usage: online-cycles.py ROUNDS CYCLES [seed0]  Env: EXARAID, REPRO_DIR, DAMAGE, SHIM, KILL."""
import os, sys, subprocess, shutil, random, json, glob
sys.argv, argv = sys.argv[:1], sys.argv
import importlib.util
spec = importlib.util.spec_from_file_location("of", os.path.join(os.path.dirname(os.path.abspath(__file__)), "online-fuzz.py"))
of = importlib.util.module_from_spec(spec); spec.loader.exec_module(of)
run, check, UNIT = of.run, of.check, of.UNIT
ROOT = os.environ.get("REPRO_DIR", "/tmp/s8s-oc")
def one(seed, cycles):
    r = random.Random(seed); d = os.path.join(ROOT, "r%d" % seed); shutil.rmtree(d, ignore_errors=True); bad = []
    assert run(["init", d, "--oss", "6", "--code", "raid6", "--stripe-unit", str(UNIT), "--write-path", "delayed"]).returncode == 0
    exp = {}
    for i in range(4):
        b = r.randbytes(r.randrange(UNIT, UNIT * 12)); run(["put", d, "f%d" % i], b); exp["f%d" % i] = bytearray(b)
    def wr(name, off, w):
        if run(["write", d, name, "--offset", str(off)], w).returncode == 0:
            f = exp[name]
            if len(f) < off + len(w): f.extend(b"\0" * (off + len(w) - len(f)))
            f[off:off + len(w)] = w
    toks = []
    for c in range(cycles):
        name = r.choice(list(exp)); toks.append(run(["delayed", "start", d, name]).stdout.decode().strip())
        for i in range(r.randrange(1, 4)):
            wr(name, r.randrange(0, len(exp[name])), r.randbytes(r.randrange(1, UNIT * 2)))
        X = r.randrange(6); run(["fail", d, "--oss", str(X)])
        for i in range(r.randrange(0, 3)):
            n2 = r.choice(list(exp)); wr(n2, r.randrange(0, len(exp[n2])), r.randbytes(r.randrange(1, UNIT * 2)))
        if r.random() < 0.5 and toks: run(["delayed", "end", d, toks.pop(0)])
        if os.environ.get("DAMAGE") and r.random() < 0.6:
            for cf in glob.glob(os.path.join(d, "oss-%d" % X, "objects", "*.cache")):
                sz = os.path.getsize(cf)
                if sz > 16:
                    with open(cf, "r+b") as fh: fh.seek(r.randrange(0, sz - 8)); fh.write(b"damaged!")
        if os.environ.get("KILL"):
            run(["online", d, "--oss", str(X)], env=dict(os.environ, LD_PRELOAD=os.environ["SHIM"], KILLN=str(r.randrange(1, 40))))
        p = run(["online", d, "--oss", str(X)])
        if p.returncode != 0 and b"not recorded as failed" not in p.stderr:
            bad.append("cycle %d online rc=%d %s" % (c, p.returncode, p.stderr.decode(errors="replace")[:200])); break
        check(d, exp, bad, "cycle %d (X=%d)" % (c, X))
        if bad: break
    shutil.rmtree(d, ignore_errors=True)
    return bad
rounds, cycles = int(argv[1]), int(argv[2]); s0 = int(argv[3]) if len(argv) > 3 else 1
os.makedirs(ROOT, exist_ok=True); nb = 0
for s in range(s0, s0 + rounds):
    try: b = one(s, cycles)
    except Exception as ex: b = ["EXC %r" % ex]
    for x in b: print("seed %d BAD %s" % (s, x), flush=True)
    nb += bool(b)
print("cycles rounds %d x %d bad %d (DAMAGE=%s KILL=%s)" % (rounds, cycles, nb, os.environ.get("DAMAGE"), os.environ.get("KILL")))
