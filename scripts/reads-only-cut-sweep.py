#!/usr/bin/env python3
"""Review tool (engineer s9s, not CI; brief item 5, s9e): the open for reads only WITH a plan a
crash cut. A store (WPATH rmw|wcl|delayed, CODE raid6) with files f0..f2 and cached bytes; a
write over f1 across stripes killed -9 at durable call K; then every command runs with the
eioshim failing every durable call under one OSS directory (FAILWRITESUNDER: its disk refuses
writes, so recovery's settle cannot finish): get of every file must exit 0 with the acked bytes
(the cut write's range: old or new per byte) or refuse naming a stripe; a write must be refused
(exit 1); then without the shim every file reads, scrub exits 0.
Usage: reads-only-cut-sweep.py K1,K2,..   Env: EXARAID, SHIM, EIOSHIM, REPRO_DIR (/tmp/s9s-rocut),
WPATH (wcl), CODE (raid6), DEADOSS (2)."""
import os, sys, subprocess, shutil, random
E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid")
SH = os.environ.get("SHIM", "/tmp/s9s-killshim.so"); EIO = os.environ.get("EIOSHIM", "/tmp/s9s-eioshim.so")
R = os.environ.get("REPRO_DIR", "/tmp/s9s-rocut"); WP = os.environ.get("WPATH", "wcl")
CODE = os.environ.get("CODE", "raid6"); DEAD = int(os.environ.get("DEADOSS", "2"))


def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=120)


def txt(p): return (p.stdout + p.stderr).decode(errors="replace").replace("\n", " | ")[:260]


stats = {"cases": 0, "clean": 0, "WRONG": 0, "bad": 0}
for k in [int(x) for x in sys.argv[1].split(",")]:
    d = R + "/s"; shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
    rng = random.Random(9); exp = {}
    assert run(["init", d, "--oss", "6", "--code", CODE, "--stripe-unit", "4096", "--write-path", WP]).returncode == 0
    for f in ("f0", "f1", "f2"):
        b = rng.randbytes(60000); run(["put", d, f], b); exp[f] = bytearray(b)
    if WP == "delayed":
        run(["delayed", "start", d, "f2"])
    for f, off, ln in (("f0", 5000, 9000), ("f2", 100, 7000)):
        w = rng.randbytes(ln); assert run(["write", d, f, "--offset", str(off)], w).returncode == 0
        exp[f][off:off + ln] = w
    cut_off, cut = 10000, rng.randbytes(30000)
    p = run(["write", d, "f1", "--offset", str(cut_off)], cut, {"LD_PRELOAD": SH, "KILLN": str(k)})
    if p.returncode != -9:
        print("K=%d not killed (rc %d)" % (k, p.returncode)); continue
    stats["cases"] += 1
    eio = {"LD_PRELOAD": EIO, "FAILWRITESUNDER": "%s/oss-%d/objects" % (d, DEAD)}
    notes = []
    ok = True
    for phase, env in (("eio", eio), ("after", None)):
        for f, e in exp.items():
            g = run(["get", d, f], env=env)
            if g.returncode != 0:
                if phase == "after":
                    notes.append("after: get %s rc %d %s" % (f, g.returncode, txt(g))); ok = False
                elif "stripe" not in g.stderr.decode():
                    notes.append("eio: get %s refused without naming a stripe: %s" % (f, txt(g))); ok = False
                else:
                    notes.append("eio: get %s refused (%s)" % (f, txt(g)[-120:]))
                continue
            got = g.stdout
            bad = [i for i in range(max(len(got), len(e)))
                   if i >= len(got) or (i < len(e) and got[i] != e[i]
                   and not (f == "f1" and cut_off <= i < cut_off + len(cut) and got[i] == cut[i - cut_off]))]
            if bad:
                stats["WRONG"] += 1; ok = False
                print("K=%d %s WRONG get %s rc 0: %d bytes, first %s" % (k, phase, f, len(bad), bad[:1]), flush=True)
        if phase == "eio":
            wr = run(["write", d, "f0", "--offset", "0"], b"x" * 100, env=env)
            if wr.returncode == 0:
                notes.append("eio: a write exited 0 with the OSS refusing writes"); ok = False
    s = run(["scrub", d])
    if s.returncode != 0:
        notes.append("scrub rc %d %s" % (s.returncode, txt(s))); ok = False
    stats["clean" if ok else "bad"] += 1
    if not ok or os.environ.get("VERBOSE"):
        print("K=%d %s" % (k, " ; ".join(notes)), flush=True)
print("DONE %s %s %s" % (WP, CODE, stats), flush=True)
