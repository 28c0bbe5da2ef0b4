#!/usr/bin/env python3
"""Review tool (engineer s7s, not CI): an fsync/fdatasync failing OUTSIDE a client write (s7d)
at the N-th sync of one store command, for every N, then a kill -9 of a later write, then
reads of every acknowledged byte, status, scrub, a rebuild of any failed OSS and a scrub.

Usage: sync-eio-sweep.py SCENARIO CODE PATH [sticky|once]
  SCENARIO: flush (`flush`), rm (`rm f1`, a settle), scrub (`scrub --repair`),
            rebuild (OSS 1 failed, writes, `rebuild --oss 1`), recovery (a write killed
            mid-way by the kill shim, then a small put whose open recovers under the failure),
            end (delayed: `delayed end` of a window over f1)
  CODE: raid5 | raid6 | rs:K:M;  PATH: wcl | delayed | rmw
Env: EXARAID (binary), EIOSHIM (scripts/eioshim.c built; uses its SYNCFAILN), SHIM (killshim),
  REPRO_DIR (scratch), POINTS (max sync points, default 30), KILLN (kill point of the later
  write, default 6), UNIT (stripe unit, default 4096).
Prints one line per point with problems and a DONE line with counts."""
import json, os, random, shutil, subprocess, sys, tempfile

E = os.environ.get("EXARAID", "/work/target-s7s/release/exaraid")
EIOSHIM = os.environ.get("EIOSHIM", "/tmp/s7s-eioshim.so")
SHIM = os.environ.get("SHIM", "/tmp/s7s-killshim.so")
BASE = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="s7s-sync-")


def run(args, inp=b"", env_extra=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.update(env_extra or {})
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env, timeout=300)


def code_args(spec):
    p = spec.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[1]) + int(p[2])
    return ["--code", p[0]], 5 if p[0] == "raid5" else 6


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def setup(d, code, path):
    """A store with cached/settled bytes in f1..f3; returns the model {name: bytes}."""
    cargs, noss = code_args(code)
    unit = int(os.environ.get("UNIT", "4096"))
    r = run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", path] + cargs)
    assert r.returncode == 0, r.stderr
    model = {}
    for i, n in ((1, 40000), (2, 9000), (3, 70000)):
        b = rnd(i, n)
        assert run(["put", d, "f%d" % i], b).returncode == 0
        model["f%d" % i] = b
    return model, unit


def overwrite(d, model, nm, off, data, env_extra=None):
    return run(["write", d, nm, "--offset", str(off)], data, env_extra)


def apply(b, off, data):
    b = bytearray(b)
    if len(b) < off + len(data):
        b.extend(bytes(off + len(data) - len(b)))
    b[off:off + len(data)] = data
    return bytes(b)


def check(d, model, maybe, label):
    """Every acknowledged byte reads back (maybe: {name: [alternatives]} for unacknowledged
    states). Returns problem strings."""
    bad = []
    names = set(run(["ls", d]).stdout.decode().split())
    for nm, b in model.items():
        if nm.startswith("_"):
            continue
        alts = [b] + maybe.get(nm, [])
        g = run(["get", d, nm])
        if g.returncode != 0:
            err = g.stderr.decode(errors="replace")
            if None in alts and nm not in names:
                continue
            bad.append("%s: get %s rc %d: %s" % (label, nm, g.returncode, err.strip()[-200:]))
            continue
        cands = [a for a in alts if a is not None]
        if g.stdout not in cands:
            # an unacknowledged write may be torn: each byte old or new (crash-geom's rule)
            x = g.stdout
            wrong = sum(1 for i in range(len(x)) if all(x[i] != (a[i] if i < len(a) else 0) for a in cands))
            if wrong or len(x) not in [len(a) for a in cands] or len(cands) == 1:
                bad.append("%s: WRONG BYTES get %s (len %d, %d bytes neither old nor new)" % (label, nm, len(x), wrong))
    return bad


def unhealthy(d):
    st = run(["status", d, "--json"])
    try:
        return [o["index"] for o in json.loads(st.stdout).get("oss", []) if not o.get("healthy", True)], st.returncode
    except ValueError:
        return None, st.returncode


def main():
    scen, code, path = sys.argv[1], sys.argv[2], sys.argv[3]
    mode = sys.argv[4] if len(sys.argv) > 4 else "sticky"
    points = int(os.environ.get("POINTS", "30"))
    killn = int(os.environ.get("KILLN", "6"))
    tmpl = os.path.join(BASE, "tmpl-%s-%s-%s" % (scen, code.replace(":", "_"), path))
    shutil.rmtree(tmpl, ignore_errors=True)
    os.makedirs(tmpl)
    # The superblock names its OSS directories by absolute path: the store lives at one path
    # (pt/s) and each point restores it from a copy of the template.
    pd = os.path.join(BASE, "pt")
    shutil.rmtree(pd, ignore_errors=True)
    os.makedirs(pd)
    d0 = os.path.join(pd, "s")
    model, unit = setup(d0, code, path)
    maybe = {}
    if scen == "rebuild":
        assert run(["fail", d0, "--oss", "1"]).returncode == 0
    if scen in ("flush", "rm", "scrub", "rebuild", "end"):
        if scen == "end" or path == "delayed":
            t = run(["delayed", "start", d0, "f1"])
            assert t.returncode == 0, t.stderr
            model["_token"] = t.stdout.decode().strip()
        for nm, off, n, s in (("f1", 5000, 3000, 11), ("f3", 20000, 9000, 12), ("f1", 30000, 12000, 13)):
            w = rnd(s, n)
            p = overwrite(d0, model, nm, off, w)
            assert p.returncode == 0, p.stderr
            model[nm] = apply(model[nm], off, w)
    if scen == "recovery":
        w = rnd(21, 30000)
        p = run(["write", d0, "f3", "--offset", "10000"], w, {"LD_PRELOAD": SHIM, "KILLN": str(killn * 3)})
        if p.returncode == 0:
            model["f3"] = apply(model["f3"], 10000, w)
        else:
            maybe["f3"] = [apply(model["f3"], 10000, w)]
    if scen == "scrub":
        # rot: one payload byte of a home data element on OSS 1 (repaired by
        # `scrub --repair`, whose syncs then fail)
        for o in ("oss-1",):
            fn = os.path.join(d0, o, "objects", "0.data")
            with open(fn, "r+b") as fh:
                fh.seek(10)
                b = fh.read(1)
                fh.seek(10)
                fh.write(bytes([b[0] ^ 0x5A]))
    token = model.get("_token")
    shutil.rmtree(tmpl)
    shutil.copytree(pd, tmpl)

    def command(d, env_extra):
        if scen == "flush":
            return run(["flush", d], b"", env_extra)
        if scen == "rm":
            return run(["rm", d, "f1"], b"", env_extra)
        if scen == "scrub":
            return run(["scrub", d, "--repair"], b"", env_extra)
        if scen == "rebuild":
            return run(["rebuild", d, "--oss", "1"], b"", env_extra)
        if scen == "recovery":
            return run(["put", d, "f9"], rnd(99, 5000), env_extra)
        if scen == "end":
            return run(["delayed", "end", d, token], b"", env_extra)

    # count the command's syncs
    d = d0
    cf = os.path.join(BASE, "count.n")
    p = command(d, {"LD_PRELOAD": EIOSHIM, "SYNCFAILN": "1000000000", "FAILCOUNT_FILE": cf})
    total = int(open(cf).read().strip())
    print("%s %s %s %s: %d syncs, command rc %d" % (scen, code, path, mode, total, p.returncode), flush=True)
    ns = list(range(1, total + 1))
    if len(ns) > points:
        ns = sorted(set(ns[int(i * len(ns) / points)] for i in range(points)))
    # KILLAFTERS="1,3,8": each sync point also with a kill -9 at the K-th durable call after the
    # failed sync (scripts/eioshim.c SYNCKILLAFTER): a crash while the store records it.
    kas = [None] + [int(x) for x in os.environ.get("KILLAFTERS", "").split(",") if x]
    ns = [(n, ka) for n in ns for ka in kas]
    counts = {"points": 0, "clean": 0, "rc0": 0, "failed_oss": 0, "problems": 0}
    for n, ka in ns:
        counts["points"] += 1
        shutil.rmtree(pd, ignore_errors=True)
        shutil.copytree(tmpl, pd)
        d = os.path.join(pd, "s")
        m = dict(model)
        mb = {k: list(v) for k, v in maybe.items()}
        ex = {"LD_PRELOAD": EIOSHIM, "SYNCFAILN": str(n), "FAILSTICKY": "1" if mode == "sticky" else "0"}
        if ka:
            ex["SYNCKILLAFTER"] = str(ka)
        p = command(d, ex)
        err = p.stderr.decode(errors="replace")
        probs = []
        if "panicked" in err:
            probs.append("PANIC in command: " + err[-300:])
        if scen == "rm":
            if p.returncode == 0:
                del m["f1"]
            else:
                mb["f1"] = [None]
        if scen == "recovery":
            if p.returncode == 0:
                m["f9"] = rnd(99, 5000)
            else:
                m["f9"] = rnd(99, 5000)
                mb["f9"] = [None]
        if p.returncode == 0:
            counts["rc0"] += 1
        cmdline = "n=%d killafter=%s rc=%d %s" % (n, ka, p.returncode, " | ".join(l for l in err.strip().splitlines()[-2:]))
        probs += check(d, m, mb, "after command")
        # a later write killed mid-way
        w = rnd(1000 + n, 20000)
        k = run(["write", d, "f2", "--offset", "1000"], w, {"LD_PRELOAD": SHIM, "KILLN": str(killn)})
        if k.returncode == 0:
            m["f2"] = apply(m["f2"], 1000, w)
        else:
            mb.setdefault("f2", []).append(apply(m["f2"], 1000, w))
        if "panicked" in k.stderr.decode(errors="replace"):
            probs.append("PANIC in later write")
        probs += check(d, m, mb, "after kill")
        bad, rc = unhealthy(d)
        if bad is None:
            probs.append("status --json rc %d" % rc)
            bad = []
        if bad:
            counts["failed_oss"] += 1
        if len(bad) > (1 if code.startswith("raid5") else 2):
            probs.append("failed past tolerance: %s" % bad)
        s = run(["scrub", d])
        if s.returncode not in (0,) and not bad:
            probs.append("scrub rc %d: %s" % (s.returncode, s.stderr.decode(errors="replace").strip()[-200:]))
        for o in bad:
            q = run(["rebuild", d, "--oss", str(o)])
            if q.returncode != 0:
                probs.append("rebuild %d rc %d: %s" % (o, q.returncode, q.stderr.decode(errors="replace").strip()[-200:]))
        if bad:
            probs += check(d, m, mb, "after rebuild")
            s = run(["scrub", d])
            if s.returncode != 0:
                probs.append("scrub after rebuild rc %d: %s" % (s.returncode, s.stderr.decode(errors="replace").strip()[-200:]))
        if probs:
            counts["problems"] += 1
            print("POINT %s failed=%s\n  %s" % (cmdline, bad, "\n  ".join(probs)), flush=True)
        else:
            counts["clean"] += 1
            if os.environ.get("VERBOSE"):
                print("ok %s failed=%s" % (cmdline, bad), flush=True)
    shutil.rmtree(BASE, ignore_errors=True) if not os.environ.get("REPRO_DIR") else None
    print("DONE %s %s %s %s: %s" % (scen, code, path, mode, counts), flush=True)


main()
