#!/usr/bin/env python3
"""Review tool (engineer s7s, not CI): s7f's Forget. A WCL/delayed store with small OSSs
(`--oss-capacity`), files with cached bytes (overwrites), optionally a delayed window open
and an OSS failed; then a put over a file with cached bytes that fails part way (too big for
the disks) is killed -9 at every durable call (and run whole). After each: the put's file is
old (or, if acknowledged, new), every other file exact; then later writes reuse the freed
cache stripes (new file, overwrites) and every byte reads back; scrub; END of the window.
Usage: forget-sweep.py CODE PATH [FAILOSS]   CODE raid5|raid6; PATH wcl|delayed
Env: EXARAID, SHIM (killshim), REPRO_DIR, POINTS (default 40), CAP (--oss-capacity, default
  262144), BIG (size of the refused put, default 2 MiB)."""
import os, random, shutil, subprocess, sys, tempfile

E = os.environ.get("EXARAID", "/work/target-s7s/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s7s-killshim.so")
PUT = os.environ.get("PUTNAME", "f1")  # the file the refused put replaces (f2: beside a window on f1)
BASE = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="s7s-forget-")


def run(args, inp=b"", env_extra=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.update(env_extra or {})
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env, timeout=300)


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def apply(b, off, data):
    b = bytearray(b)
    if len(b) < off + len(data):
        b.extend(bytes(off + len(data) - len(b)))
    b[off:off + len(data)] = data
    return bytes(b)


def must(p, what):
    if p.returncode != 0:
        raise SystemExit("setup %s rc %d: %s" % (what, p.returncode, p.stderr.decode(errors="replace")))
    return p


def check(d, model, alts, label):
    bad = []
    for nm, b in model.items():
        g = run(["get", d, nm])
        cands = [b] + alts.get(nm, [])
        if g.returncode != 0:
            if None in cands:
                continue
            bad.append("%s: get %s rc %d: %s" % (label, nm, g.returncode, g.stderr.decode(errors="replace").strip()[-250:]))
            continue
        if "TORN" in cands and len(cands) >= 3 and len(g.stdout) == len(cands[0]):
            new, old = cands[1], cands[3]
            x = g.stdout
            nb = sum(1 for i in range(len(x)) if x[i] != new[i] and x[i] != old[i])
            if nb:
                bad.append("%s: WRONG BYTES get %s: %d bytes neither old nor new" % (label, nm, nb))
            continue
        if g.stdout not in [c for c in cands if c is not None and not isinstance(c, str)]:
            bad.append("%s: WRONG BYTES get %s (len %d; candidates %s)" % (label, nm, len(g.stdout), [len(c) for c in cands if c is not None]))
    return bad


def main():
    code, path = sys.argv[1], sys.argv[2]
    failoss = sys.argv[3] if len(sys.argv) > 3 else None
    points = int(os.environ.get("POINTS", "40"))
    cap = os.environ.get("CAP", "262144")
    big = int(os.environ.get("BIG", str(2 << 20)))
    noss = 5 if code == "raid5" else 6
    pd = os.path.join(BASE, "pt")
    tmpl = os.path.join(BASE, "tmpl")
    for x in (pd, tmpl):
        shutil.rmtree(x, ignore_errors=True)
    os.makedirs(pd)
    d = os.path.join(pd, "s")
    must(run(["init", d, "--oss", str(noss), "--code", code, "--stripe-unit", "4096", "--write-path", path, "--oss-capacity", cap]), "init")
    model = {}
    for i, n in ((1, 30000), (2, 50000), (3, 12000)):
        model["f%d" % i] = rnd(i, n)
        must(run(["put", d, "f%d" % i], model["f%d" % i]), "put")
    token = None
    if path == "delayed":
        token = must(run(["delayed", "start", d, "f1"]), "start").stdout.decode().strip()
    for nm, off, n, s in (("f1", 3000, 9000, 11), ("f2", 20000, 8000, 12), ("f1", 25000, 6000, 13)):
        w = rnd(s, n)
        must(run(["write", d, nm, "--offset", str(off)], w), "write")
        model[nm] = apply(model[nm], off, w)
    if failoss:
        must(run(["fail", d, "--oss", failoss]), "fail")
    newf1 = rnd(77, big)
    later = os.environ.get("PHASE") == "later"
    if later:
        # PHASE=later: the refused put runs whole first (its Forget on record, its cache
        # chunks free); the swept command is then an overwrite of f2 reusing those chunks.
        p = run(["put", d, PUT], newf1)
        assert p.returncode == 1, p.stderr
    shutil.copytree(pd, tmpl)
    cf = os.path.join(BASE, "count")
    if later:
        p = run(["write", d, "f2", "--offset", "2000"], rnd(555, 14000), {"LD_PRELOAD": SHIM, "KILLN": "0", "KILLCOUNT_FILE": cf})
    else:
        p = run(["put", d, PUT], newf1, {"LD_PRELOAD": SHIM, "KILLN": "0", "KILLCOUNT_FILE": cf})
    total = int(open(cf).read().strip())
    print(("later write" if later else "refused put") + ": rc %d, %d durable calls: %s" % (p.returncode, total, p.stderr.decode(errors="replace").strip()[-300:]), flush=True)
    ns = list(range(1, total + 2))
    if len(ns) > points:
        ns = sorted(set(ns[int(i * len(ns) / points)] for i in range(points))) + [total + 1]
    counts = {"points": 0, "clean": 0, "problems": 0, "killed": 0}
    for n in ns:
        counts["points"] += 1
        shutil.rmtree(pd)
        shutil.copytree(tmpl, pd)
        m = dict(model)
        alts = {}
        if later:
            w = rnd(555, 14000)
            p = run(["write", d, "f2", "--offset", "2000"], w, {"LD_PRELOAD": SHIM, "KILLN": str(n)})
            new = apply(m["f2"], 2000, w)
            if p.returncode == 0:
                m["f2"] = new
            else:
                counts["killed"] += p.returncode != 1
                # torn: each 4 KiB block old or new (checked in check_torn below)
                alts["f2"] = [new] + ["TORN", m["f2"]]
        else:
            p = run(["put", d, PUT], newf1, {"LD_PRELOAD": SHIM, "KILLN": str(n)})
        err = p.stderr.decode(errors="replace")
        probs = []
        if "panicked" in err:
            probs.append("PANIC: " + err[-300:])
        if later:
            pass
        elif p.returncode == 0:
            m[PUT] = newf1
        else:
            if p.returncode != 1:
                counts["killed"] += 1
            alts[PUT] = [newf1]
        probs += check(d, m, alts, "after put")
        # later writes reuse the freed cache stripes
        for nm, off, n2, s in (("f3", 1000, 9000, 100 + n), ("f2", 4000, 12000, 200 + n), ("f4", 0, 20000, 300 + n)):
            if later and nm == "f2":
                continue
            w = rnd(s, n2)
            q = run(["put", d, nm], w) if nm == "f4" else run(["write", d, nm, "--offset", str(off)], w)
            if q.returncode == 0:
                m[nm] = w if nm == "f4" else apply(m[nm], off, w)
            elif "full" not in q.stderr.decode(errors="replace").lower() and "space" not in q.stderr.decode(errors="replace").lower():
                probs.append("later %s rc %d: %s" % (nm, q.returncode, q.stderr.decode(errors="replace").strip()[-250:]))
        probs += check(d, m, alts, "after later writes")
        if token:
            e = run(["delayed", "end", d, token])
            if e.returncode != 0:
                probs.append("END rc %d: %s" % (e.returncode, e.stderr.decode(errors="replace").strip()[-250:]))
        q = run(["flush", d])
        if q.returncode != 0:
            probs.append("flush rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace").strip()[-250:]))
        probs += check(d, m, alts, "after END/flush")
        s = run(["scrub", d])
        if s.returncode != 0 and not failoss:  # with an OSS failed scrub exits 2 (FAILED)
            probs.append("scrub rc %d: %s" % (s.returncode, s.stderr.decode(errors="replace").strip()[-250:]))
        if failoss:
            q = run(["rebuild", d, "--oss", failoss])
            if q.returncode != 0:
                probs.append("rebuild rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace").strip()[-250:]))
            probs += check(d, m, alts, "after rebuild")
        if probs:
            counts["problems"] += 1
            print("POINT n=%d rc=%d %s\n  %s" % (n, p.returncode, err.strip().splitlines()[-1][-200:] if err.strip() else "", "\n  ".join(probs)), flush=True)
        else:
            counts["clean"] += 1
    print("DONE forget %s %s fail=%s: %s" % (code, path, failoss, counts), flush=True)


main()
