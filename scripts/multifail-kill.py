#!/usr/bin/env python3
"""Review tool (engineer s8r, not CI): kill -9 sweeps with MORE than one OSS failed before the
killed command, for codes that tolerate 3 or 4 failures (rs 4+3, rs 6+4) and the array codes;
then the last failure the code tolerates, and a rebuild of each failed OSS in turn, with every
file read after each step. crash-geom.py fails one OSS first and one more after; this one fails
FAILS (default: tolerance - 1 OSSs) first.

Usage: multifail-kill.py SCENARIO CODE OSS UNIT PATH [plain|tear] [seed]
  CODE, OSS, UNIT, PATH as in crash-geom.py (rs:4:3, rs:6:4, xcode:5, hdp:5, ...).
  SCENARIO: write   (a write into f1 across a stripe boundary, killed)
            put     (a put over f1, killed)
            flush   (`rm f3`, its settle killed; wcl/delayed)
            end     (delayed: FAILS failed before START, a window over f1, END killed)
            rebuild (`rebuild --oss` of the first of FAILS, killed)
            scrub   (one byte flipped in a healthy OSS's FLIP file, `scrub --repair` killed;
                     FLIP=data|parity|cache, default data)
Env: EIO=1|sticky (instead of a kill the N-th durable call fails with EIO, EIOSHIM=
  scripts/eioshim.c built; FAILS may then take the whole tolerance), EXARAID, SHIM (kill shim, scripts/killshim.c), POINTS (default 30), FAILS (comma list of
  OSSs failed before, "none" for none; default the tolerance - 1 OSSs 0, 2, 4, ...;
  `end` with OSSs failed before START refuses window writes that would go to them), LAST (the OSS of the last
  failure; default the first healthy one after the kill), REPRO_DIR (scratch), KEEP=1,
  DEAD=1 (s5s S1/S2 with more failures: after the kill the LAST OSS's directory is emptied
  before anything reopens the store, then `fail --oss LAST`; LOST is reported, WRONG is the bug),
  EARLY=1 (the last failure right after the kill, before the killed rebuild / scrub is rerun).
After each kill point: every file reads its old or new bytes (per byte for a write), the rerun
of a killed rebuild / scrub, END of open windows, the LAST failure (tolerance reached) and
every file again, then `rebuild --oss` of each failed OSS in turn (every file read after each),
status all healthy, scrub exit 0.
Prints one line per problem and a DONE line with the counts."""
import importlib.util
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("SHIM", "/tmp/s8r-killshim.so")
_spec = importlib.util.spec_from_file_location("crash_geom", os.path.join(HERE, "crash-geom.py"))
cg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cg)
run, check, rnd, must = cg.run, cg.check, cg.rnd, cg.must


def flip_byte(d, noss, fails, kind, r):
    """Flips one bit of a random byte of a healthy OSS's object file of `kind`."""
    suffix = {"data": ".data", "parity": ".parity", "cache": ".cache"}[kind]
    objs = []
    for o in range(noss):
        if o in fails:
            continue
        od = os.path.join(d, "oss-%d" % o, "objects")
        if os.path.isdir(od):
            objs += [os.path.join(od, f) for f in sorted(os.listdir(od))
                     if f.endswith(suffix) and os.path.getsize(os.path.join(od, f)) > 0]
    if not objs:
        raise SystemExit("no %s object file to flip" % kind)
    o = r.choice(objs)
    pos = r.randrange(os.path.getsize(o))
    with open(o, "r+b") as fh:
        fh.seek(pos)
        b = fh.read(1)
        fh.seek(pos)
        fh.write(bytes([b[0] ^ (1 << r.randrange(8))]))
    return "%s byte %d" % (o, pos)


def setup(name, code, noss, unit, path, seed, d, fails):
    cargs, width, tol = cg.code_args(code)
    shutil.rmtree(d, ignore_errors=True)
    k = (width or noss) - tol
    stripe = unit * k
    must(run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", path] + cargs), "init")
    files = {}
    r = random.Random(seed)
    for i in range(4):
        size = int(stripe * 2.3) + 123 if i == 1 else r.randrange(stripe // 3, stripe * 2)
        b = rnd(seed * 100 + i, size)
        must(run(["put", d, "f%d" % i], b), "put f%d" % i)
        files["f%d" % i] = [b]
    for f in fails:
        must(run(["fail", d, "--oss", str(f)]), "fail %d" % f)
    tok = None
    if name == "end":
        tok = must(run(["delayed", "start", d, "f1"]), "start").stdout.decode().strip()
    exp = bytearray(files["f1"][0])
    for i in range(4):
        off = r.randrange(0, len(exp) - 5000)
        w = rnd(seed * 100 + 50 + i, r.randrange(1, max(2, unit * 2)))
        p = run(["write", d, "f1", "--offset", str(off)], w)
        if p.returncode != 0:
            raise SystemExit("setup write failed: " + p.stderr.decode(errors="replace"))
        exp[off:off + len(w)] = w
    files["f1"] = [bytes(exp)]
    finish = []
    note = ""
    if name == "end":
        cmd, inp = ["delayed", "end", d, tok], b""
    elif name == "write":
        off = stripe - r.randrange(1, unit)
        w = rnd(seed * 100 + 90, r.randrange(unit // 2, unit * 3))
        new = bytearray(exp)
        if len(new) < off + len(w):
            new.extend(b"\0" * (off + len(w) - len(new)))
        new[off:off + len(w)] = w
        files["f1"] = ("mix", bytes(exp), bytes(new))
        cmd, inp = ["write", d, "f1", "--offset", str(off)], w
    elif name == "put":
        nb = rnd(seed * 100 + 91, int(stripe * 1.7) + 77)
        files["f1"] = [bytes(exp), nb]
        cmd, inp = ["put", d, "f1"], nb
    elif name == "flush":
        files["f3"] = [files["f3"][0], None]
        cmd, inp = ["rm", d, "f3"], b""
    elif name == "rebuild":
        cmd, inp = ["rebuild", d, "--oss", str(fails[0])], b""
        finish = [cmd]
    elif name == "scrub":
        note = flip_byte(d, noss, fails, os.environ.get("FLIP", "data"), r)
        cmd, inp = ["scrub", d, "--repair"], b""
        finish = [cmd]
    else:
        raise SystemExit("unknown scenario " + name)
    return files, cmd, inp, finish, note


def unhealthy(d):
    st = run(["status", d, "--json"])
    try:
        return [o["index"] for o in json.loads(st.stdout).get("oss", []) if not o.get("healthy", True)]
    except ValueError:
        return None


def main():
    name, code, noss, unit, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    tear = len(sys.argv) > 6 and sys.argv[6] == "tear"
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 7
    _, width, tol = cg.code_args(code)
    if os.environ.get("FAILS"):
        fails = [] if os.environ["FAILS"] == "none" else [int(x) for x in os.environ["FAILS"].split(",")]
    else:
        fails = [2 * i for i in range(tol - 1)]
    # With EIO= (scripts/eioshim.c through crash-geom's run) FAILS may take the whole
    # tolerance: the injected error then hits an OSS one past it.
    assert len(fails) < tol or (os.environ.get("EIO") and len(fails) == tol), "FAILS must leave one failure to spare"
    base = os.environ.get("REPRO_DIR") or cg.scratch("s8r-mf")
    d = os.path.join(base, "%s-%s-%d-%d-%s" % (name, code.replace(":", "_"), noss, unit, path))
    files, cmd, inp, finish, note = setup(name, code, noss, unit, path, seed, d, fails)
    cf = d + ".count"
    p = run(cmd, inp, count_file=cf)
    total = int(open(cf).read().strip())
    os.remove(cf)
    maxp = int(os.environ.get("POINTS", "30"))
    if total <= maxp:
        points = list(range(1, total + 1))
    else:
        points = sorted(set([1, 2, 3, total - 2, total - 1, total] + [1 + (total - 1) * i // (maxp - 6) for i in range(maxp - 6)]))
    print("%s %s oss=%d unit=%d %s %s fails=%s: %d durable calls (rc unkilled %d), %d points" % (
        name, code, noss, unit, path, "tear" if tear else "plain", fails, total, p.returncode, len(points)), flush=True)
    if p.returncode != 0 and not (name == "scrub" and p.returncode == 2):
        print("  unkilled command rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-300:]), flush=True)
    problems = 0
    killed_n = 0
    for n in points:
        files, cmd, inp, finish, note = setup(name, code, noss, unit, path, seed, d, fails)
        p = run(cmd, inp, kill_n=n, tear=tear)
        killed = p.returncode == -9
        if os.environ.get("EIO"):
            killed = p.returncode != 0 and b"EIOSHIM" in p.stderr
        killed_n += killed
        where = [l for l in p.stderr.decode(errors="replace").splitlines() if "KILLSHIM" in l or "EIOSHIM" in l][:1]
        if os.environ.get("EIO") and p.returncode != 0:
            where.append("rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace").strip().splitlines()[-1][-300:]))
        bad = []
        if not killed:
            if p.returncode != 0 and not (name == "scrub" and p.returncode == 2):
                bad.append("command rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-300:]))
        if p.returncode == 0:
            if name == "write":
                files["f1"] = [files["f1"][2]]
            elif name == "put":
                files["f1"] = [inp]
            elif name == "flush":
                files["f3"] = [None]
        if os.environ.get("DEAD") and killed:
            # s5s S1/S2 with more failures: the LAST OSS's disk dies between the kill and
            # the next open (its directory emptied, nothing recovered yet), then `fail`
            dead = int(os.environ.get("LAST") or next(o for o in range(noss) if o not in fails))
            shutil.rmtree(os.path.join(d, "oss-%d" % dead))
            os.makedirs(os.path.join(d, "oss-%d" % dead))
            q = run(["fail", d, "--oss", str(dead)])
            lost = [l for l in q.stdout.decode(errors="replace").splitlines() if l.startswith("LOST")]
            if q.returncode != 0:
                bad.append("fail of the dead OSS %d rc %d: %s" % (dead, q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
            if lost:
                bad.append("dead OSS %d: fail recorded %d LOST lines, e.g. %s" % (dead, len(lost), lost[0][:160]))
            bad += check(d, files, "dead OSS %d" % dead)
        if os.environ.get("EARLY") and killed:
            # the last failure BEFORE the killed rebuild / scrub is run again (a half-rebuilt
            # OSS, a half-repaired stripe): every acknowledged byte must still read
            down = unhealthy(d) or list(fails)
            early = int(os.environ.get("LAST") or next(o for o in range(noss) if o not in down and o not in fails))
            if len(down) < tol:
                q = run(["fail", d, "--oss", str(early)])
                if q.returncode != 0:
                    bad.append("early last fail (OSS %d) rc %d: %s" % (early, q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
                else:
                    bad += check(d, files, "early last failure (OSS %d) before finishing" % early)
        for a in finish:
            q = run(a)
            if q.returncode not in (0, 2) and not (a[0] == "rebuild" and b"is healthy" in q.stderr):
                bad.append("finishing %s rc %d: %s" % (a[0], q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
        bad += check(d, files, "after kill")
        st = run(["status", d, "--json"])
        try:
            for w in json.loads(st.stdout).get("open_windows", []):
                e = run(["delayed", "end", d, w["token"]])
                if e.returncode:
                    bad.append("END after the kill rc %d: %s" % (e.returncode, e.stderr.decode(errors="replace")[-300:]))
        except ValueError:
            bad.append("status --json failed: %s" % st.stderr.decode(errors="replace")[-300:])
        down = unhealthy(d)
        if down is None:
            bad.append("status --json failed")
            down = list(fails)
        last = os.environ.get("LAST")
        last = int(last) if last else next(o for o in range(noss) if o not in down and o not in fails)
        if len(down) < tol:
            q = run(["fail", d, "--oss", str(last)])
            if q.returncode != 0:
                bad.append("last fail (OSS %d) rc %d: %s" % (last, q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
            else:
                bad += check(d, files, "with %d OSSs failed (+%d)" % (len(down) + 1, last))
        for o in sorted(unhealthy(d) or []):
            q = run(["rebuild", d, "--oss", str(o)])
            if q.returncode != 0:
                bad.append("rebuild %d rc %d: %s" % (o, q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
            bad += check(d, files, "after rebuild of OSS %d" % o)
        left = unhealthy(d)
        if left:
            bad.append("still unhealthy after rebuilds: %s" % left)
        s = run(["scrub", d])
        if s.returncode != 0:
            bad.append("final scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
        if bad:
            problems += 1
            print("n=%d killed=%s %s %s" % (n, killed, where, note), flush=True)
            for b in bad:
                print("   " + b, flush=True)
        elif not os.environ.get("KEEP"):
            pass
    print("DONE %s %s oss=%d unit=%d %s fails=%s: %d problems of %d points (%d killed)" % (
        name, code, noss, unit, path, fails, problems, len(points), killed_n), flush=True)
    if not os.environ.get("KEEP"):
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
