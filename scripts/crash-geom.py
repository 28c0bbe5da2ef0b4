#!/usr/bin/env python3
"""Review tool (engineer s4e, not CI): kill -9 sweeps over one store command on larger and
other geometries (1 MiB / 64 KiB stripe units, rs 8+3 / 10+4, more OSSs than the stripe
width so files land round robin, several files), then check every acknowledged byte, finish
the command (rebuild / scrub --repair again, END), a SECOND failure, rebuild, scrub.

Usage: crash-geom.py SCENARIO CODE OSS UNIT PATH [plain|tear|page] [seed]
  (page: the killshim's KILLTEAR=page, a kill -9 that stops a pwrite at a 4 KiB file page)
  CODE: raid5 | raid6 | rs:K:M | xcode:P | ...  (rs:8:3 = --code rs --k 8 --m 3)
  OSS: number of OSSs (may exceed the stripe width); UNIT: stripe unit bytes; PATH: rmw|wcl|delayed
  SCENARIO: write   (killed write into f1 across a stripe boundary; FAILOSS= fails one first)
            put     (killed put over f1)
            end     (delayed: killed END of a window over f1; FAILOSS= fails one before END)
            rebuild (FAILOSS failed, writes, killed `rebuild --oss FAILOSS`; REBUILDTO=1: --to)
            scrub   (one element corrupted, killed `scrub --repair`)
            flush   (wcl: killed `rm f3` after writes, a settle)
            get     (get f1; with EIOREAD=1 one read of an OSS object fails: must read exactly)
Env: EIO=1 (instead of a kill, the N-th durable call fails with EIO: scripts/eioshim.c, built
  to /tmp/s4e-eioshim.so; EIO=sticky: every later call on that OSS directory fails too;
  with EIOREAD=1 the N-th read of an OSS object file fails instead; FAILERRNO=ENOSPC: ENOSPC),
  EXARAID (binary, default /work/target-s4e/release/exaraid), SHIM (default
  /tmp/s4e-killshim.so, build: gcc -O2 -shared -fPIC -o /tmp/s4e-killshim.so
  scripts/killshim.c -ldl), POINTS (max kill points, spread evenly over the command's durable
  calls; default 40), FAILOSS (OSS failed before; default none, rebuild: 1), SECOND (OSS of
  the second failure), S4E_DIR (scratch, default: s4e-cg under $REPRO_DIR or a
  new temporary directory), KEEP=1 (keep failing stores),
  EARLY2=1 (fail SECOND right after the kill, before the command is finished; check),
  FAILAFTER=1 (s5r: fail FAILOSS after the 4 setup writes, not before: their cached bytes sit on it),
  KILLAT=write-torn-block|settle-torn-block (s7b: instead of the shim, the store's own kill
  point EXARAID_KILL_AT=KILLAT:n, n = 1.. until the command is not killed, at most POINTS:
  every block write of the command torn between its payload and its checksums),
  NFILES (files, default 4), S4E_SELFTEST=1 (write: count the killed write as acknowledged;
  must report wrong bytes at most kill points: checks the checker), FSIZE (size of f1 in stripe units' multiples of the width, float).
Prints one line per kill point with problems and a DONE line with the counts."""
import os, subprocess, sys, shutil, random
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)

E = os.environ.get("EXARAID", "/work/target-s4e/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s4e-killshim.so")


def code_args(spec):
    p = spec.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[1]) + int(p[2]), int(p[2])
    if p[0] in ("raid5", "raid6"):
        k = int(p[1]) if len(p) > 1 else None
        m = 1 if p[0] == "raid5" else 2
        return ["--code", p[0]] + (["--k", str(k)] if k else []), (k + m if k else None), m
    width = {"xcode": 0, "dcode": 0, "hdp": -1, "rdp": 1, "evenodd": 2, "hcode": 1}[p[0]]
    prime = int(p[1]) if len(p) > 1 else 5
    return ["--code", p[0], "--p", str(prime)], prime + width, 2


TEARMODE = sys.argv[6] if len(sys.argv) > 6 else "plain"


def run(args, inp=b"", kill_n=None, tear=False, count_file=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if (kill_n is not None or count_file) and os.environ.get("EIO"):
        # error injection instead of a kill: the FAILN-th durable call fails (scripts/eioshim.c)
        env["LD_PRELOAD"] = os.environ.get("EIOSHIM", "/tmp/s4e-eioshim.so")
        if os.environ.get("EIOREAD"):
            env["READFAILN"] = str(kill_n or 0)  # the N-th read of an OSS object file fails
        else:
            env["FAILN"] = str(kill_n or 0)
        env["FAILSTICKY"] = "1" if os.environ.get("EIO") == "sticky" else "0"
        if count_file:
            env["FAILCOUNT_FILE"] = count_file
            env["READCOUNT_FILE"] = count_file + ".reads"
    elif kill_n is not None and os.environ.get("KILLAT"):
        env["EXARAID_KILL_AT"] = "%s:%d" % (os.environ["KILLAT"], kill_n)
    elif kill_n is not None or count_file:
        env["LD_PRELOAD"] = SHIM
        env["KILLN"] = str(kill_n or 0)
        # tear=page (s13r): KILLTEAR=page, the kill -9 page-boundary tear (killshim).
        env["KILLTEAR"] = ("page" if TEARMODE == "page" else "1") if tear else "0"
        if count_file:
            env["KILLCOUNT_FILE"] = count_file
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env)


def must(p, what):
    if p.returncode != 0:
        raise SystemExit("setup step %s failed rc %d: %s" % (what, p.returncode, p.stderr.decode(errors="replace")))
    return p


def unhealthy_osses(d):
    """The OSSs `status --json` reports not healthy (failed on record or unavailable), and
    an error line when status failed (then none are known)."""
    import json
    st = run(["status", d, "--json"])
    try:
        oss = json.loads(st.stdout).get("oss", [])
        return [o["index"] for o in oss if not o.get("healthy", True)], None
    except ValueError:
        return [], "status --json failed: %s" % st.stderr.decode(errors="replace")[-300:]


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def diff_count(a, b, c=None):
    """Bytes of a that equal neither b nor (if given) c; compares 4 KiB pieces first."""
    bad, first = 0, None
    for o in range(0, len(a), 4096):
        x, y = a[o:o + 4096], b[o:o + 4096]
        z = c[o:o + 4096] if c is not None else None
        if x == y or (z is not None and x == z):
            continue
        for i in range(len(x)):
            if x[i] != (y[i] if i < len(y) else 0) and (z is None or x[i] != (z[i] if i < len(z) else 0)):
                bad += 1
                first = o + i if first is None else first
    return bad, first


def check_blockwise(d, nm, acc, label):
    """`get` refused (bytes lost on record): read the file in 64 KiB pieces, 4 KiB inside a
    refused piece, so that a LOST case still checks every byte that reads (s7b)."""
    if isinstance(acc, tuple):
        _, old, new = acc
        cands = [old, new]
    else:
        cands = [a for a in acc if a is not None]
    if not cands:
        return []
    size = min(len(c) for c in cands)
    wrong, lost = [], 0

    def ok(off, got):
        if isinstance(acc, tuple):
            o = old[off:off + len(got)] + b"\0" * max(0, off + len(got) - len(old))
            return diff_count(got, new[off:off + len(got)], o)[0] == 0
        return any(c[off:off + len(got)] == got for c in cands)

    for a in range(0, size, 65536):
        n = min(65536, size - a)
        r = run(["read", d, nm, "--offset", str(a), "--length", str(n)])
        if r.returncode == 0:
            if not ok(a, r.stdout):
                wrong.append(a)
            continue
        for b in range(a, a + n, 4096):
            m = min(4096, a + n - b)
            q = run(["read", d, nm, "--offset", str(b), "--length", str(m)])
            if q.returncode != 0:
                lost += m
            elif not ok(b, q.stdout):
                wrong.append(b)
    out = ["%s: %s blockwise: %d bytes refused of %d%s" % (label, nm, lost, size, "" if wrong else ", every other byte exact")]
    if wrong:
        out.append("%s: read %s WRONG BYTES exit 0 (blockwise) at %s" % (label, nm, wrong[:8]))
    return out


def check(d, files, label):
    """files: name -> list of allowed contents (None = may be absent) or ("mix", old, new)."""
    bad = []
    names = set(run(["ls", d]).stdout.decode().split())
    for nm, acc in files.items():
        g = run(["get", d, nm])
        if g.returncode != 0:
            if isinstance(acc, list) and None in acc and nm not in names:
                continue
            bad.append("%s: get %s rc %d: %s" % (label, nm, g.returncode, g.stderr.decode(errors="replace")[-500:].strip()))
            bad += check_blockwise(d, nm, acc, label)
            continue
        act = g.stdout
        if isinstance(acc, tuple):
            _, old, new = acc
            n = max(len(old), len(new))
            o2 = old + b"\0" * (n - len(old))
            nb, first = diff_count(act, new, o2)
            if len(act) not in (len(old), len(new)) or nb:
                bad.append("%s: get %s WRONG BYTES exit 0: len %d (old %d new %d) %d bad, first %s" % (
                    label, nm, len(act), len(old), len(new), nb, first))
            continue
        if not any(a is not None and act == a for a in acc):
            detail = ""
            for a in acc:
                if a is not None and len(a) == len(act):
                    detail = " %d bytes differ, first at %s" % diff_count(act, a)
            bad.append("%s: get %s WRONG BYTES exit 0 (len %d, allowed %s)%s" % (
                label, nm, len(act), [None if a is None else len(a) for a in acc], detail))
    return bad


def setup(name, code, noss, unit, path, seed, d):
    cargs, width, tol = code_args(code)
    shutil.rmtree(d, ignore_errors=True)
    k = (width or noss) - tol
    stripe = unit * k
    nfiles = int(os.environ.get("NFILES", "4"))
    must(run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", path] + cargs), "init")
    files = {}
    r = random.Random(seed)
    # files of 0.3 .. 2.3 stripes, f1 a little over 2 stripes (a write crosses a stripe boundary)
    for i in range(nfiles):
        size = int(stripe * float(os.environ.get("FSIZE", "2.3"))) + 123 if i == 1 else r.randrange(stripe // 3, stripe * 2)
        b = rnd(seed * 100 + i, size)
        must(run(["put", d, "f%d" % i], b), "put f%d" % i)
        files["f%d" % i] = [b]
    fail = os.environ.get("FAILOSS", "1" if name == "rebuild" else "")
    tok = None
    if name == "end":
        tok = must(run(["delayed", "start", d, "f1"]), "start").stdout.decode().strip()
    elif fail and not os.environ.get("FAILAFTER"):
        must(run(["fail", d, "--oss", fail]), "fail")
    base = files["f1"][0]
    exp = bytearray(base)
    for i in range(4):
        off = r.randrange(0, len(base) - 5000)
        w = rnd(seed * 100 + 50 + i, r.randrange(1, max(2, unit * 2)))
        p = run(["write", d, "f1", "--offset", str(off)], w)
        if p.returncode != 0:
            raise SystemExit("setup write failed: " + p.stderr.decode(errors="replace"))
        if len(exp) < off + len(w):
            exp.extend(b"\0" * (off + len(w) - len(exp)))
        exp[off:off + len(w)] = w
    files["f1"] = [bytes(exp)]
    if fail and name != "end" and os.environ.get("FAILAFTER"):
        # review s5r (R5): fail the OSS after the setup writes, so that cached bytes sit on it
        must(run(["fail", d, "--oss", fail]), "fail")
    finish = []
    if name == "end":
        if fail:
            must(run(["fail", d, "--oss", fail]), "fail")
        return files, ["delayed", "end", d, tok], b"", finish, fail
    if name == "write":
        off = stripe - r.randrange(1, unit)  # crosses the first stripe boundary
        w = rnd(seed * 100 + 90, r.randrange(unit // 2, unit * 3))
        new = bytearray(exp)
        if len(new) < off + len(w):
            new.extend(b"\0" * (off + len(w) - len(new)))
        new[off:off + len(w)] = w
        files["f1"] = ("mix", bytes(exp), bytes(new))
        return files, ["write", d, "f1", "--offset", str(off)], w, finish, fail
    if name == "put":
        nb = rnd(seed * 100 + 91, int(stripe * 1.7) + 77)
        files["f1"] = [bytes(exp), nb]
        return files, ["put", d, "f1"], nb, finish, fail
    if name == "rebuild":
        cmd = ["rebuild", d, "--oss", fail]
        if os.environ.get("REBUILDTO"):
            cmd += ["--to", d + "/new-oss"]
        finish = [cmd]
        return files, cmd, b"", finish, fail
    if name == "scrub":
        objs = sorted(os.path.join(d, "oss-%d/objects" % o, f) for o in range(noss)
                      for f in os.listdir(os.path.join(d, "oss-%d/objects" % o))
                      if os.path.getsize(os.path.join(d, "oss-%d/objects" % o, f)) > 0)
        o = objs[seed % len(objs)]
        pos = r.randrange(min(os.path.getsize(o), unit))  # inside slot 0's element bytes
        with open(o, "r+b") as fh:
            fh.seek(pos)
            b = fh.read(1)
            fh.seek(pos)
            fh.write(bytes([b[0] ^ 0x10]))
        print("corrupted %s byte %d" % (o, pos), flush=True)
        finish = [["scrub", d, "--repair"]]
        return files, ["scrub", d, "--repair"], b"", finish, fail
    if name == "get":  # a read command (with EIOREAD: one read of an OSS object fails)
        return files, ["get", d, "f1"], b"", finish, fail
    if name == "flush":
        files["f3"] = [files["f3"][0], None]
        return files, ["rm", d, "f3"], b"", finish, fail
    raise SystemExit("unknown scenario " + name)


def main():
    name, code, noss, unit, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    tear = len(sys.argv) > 6 and sys.argv[6] in ("tear", "page")
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 7
    _, width, tol = code_args(code)
    d = os.path.join(os.environ.get("S4E_DIR") or scratch("s4e-cg"), "%s-%s-%d-%d-%s" % (name, code.replace(":", "_"), noss, unit, path))
    # how many durable calls the command makes when not killed
    files, cmd, inp, finish, fail = setup(name, code, noss, unit, path, seed, d)
    cf = d + ".count"
    killat = os.environ.get("KILLAT")
    if killat:
        # the store's kill point: n = 1.. until the command runs past its last such point
        p = run(cmd, inp)
        total = int(os.environ.get("POINTS", "40"))
    else:
        p = run(cmd, inp, count_file=cf)
        total = int(open(cf).read().strip())
        os.remove(cf)
    if os.environ.get("EIOREAD"):
        total = int(open(cf + ".reads").read().strip())
        os.remove(cf + ".reads")
    maxp = int(os.environ.get("POINTS", "40"))
    if total <= maxp:
        points = list(range(1, total + 1))
    else:
        points = sorted(set([1, 2, 3, total - 2, total - 1, total] + [1 + (total - 1) * i // (maxp - 6) for i in range(maxp - 6)]))
    print("%s %s oss=%d unit=%d %s %s: %d %s, killing at %d points (rc unkilled %d)" % (
        name, code, noss, unit, path, "tear" if tear else "plain", total,
        "points at most (KILLAT=%s)" % killat if killat else "durable calls", len(points), p.returncode), flush=True)
    killed_points = 0
    found = 0
    for n in points:
        files, cmd, inp, finish, fail = setup(name, code, noss, unit, path, seed, d)
        p = run(cmd, inp, kill_n=n, tear=tear)
        killed = p.returncode == -9
        killed_points += killed
        if os.environ.get("EIO"):
            # the injected error: the command fails (not acknowledged) or absorbs it (rc 0)
            killed = p.returncode != 0 and b"EIOSHIM" in p.stderr
        where = [l for l in p.stderr.decode(errors="replace").splitlines() if "KILLSHIM" in l or "EIOSHIM" in l or "error" in l][:3]
        if not killed and p.returncode == 0:
            if name == "write":
                files["f1"] = [files["f1"][2]]
            elif name == "put":
                files["f1"] = [inp]
            elif name == "flush":
                files["f3"] = [None]
        if name == "get" and p.returncode == 0 and p.stdout != files["f1"][0]:
            print("n=%d get exit 0 with WRONG BYTES %s" % (n, where), flush=True)
            found += 1
        elif name == "get" and p.returncode != 0 and p.returncode != -9:
            print("n=%d get rc %d (one failed read on a %d-tolerant code): %s" % (
                n, p.returncode, tol, p.stderr.decode(errors="replace")[-300:].strip()), flush=True)
            found += 1
        if os.environ.get("S4E_SELFTEST") and killed and name == "write":
            files["f1"] = [files["f1"][2]]  # pretend the killed write was acknowledged: must fail
        bad = []
        if not killed and p.returncode != 0 and not (name == "scrub" and p.returncode == 2 and fail):
            bad.append("command rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-300:]))
        if os.environ.get("EARLY2") and killed:
            # a second failure BEFORE the killed command is finished (a half-rebuilt OSS, a
            # half-repaired scrub): every acknowledged byte must still read
            second = os.environ.get("SECOND", str((int(fail or 0) + 2) % noss))
            q = run(["fail", d, "--oss", second])
            if q.returncode != 0:
                bad.append("early second fail rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
            bad += check(d, files, "early second failure (OSS %s) before finishing" % second)
            finish = finish + [["rebuild", d, "--oss", second]]
        for a in finish:
            q = run(a)
            if q.returncode != 0 and not (a[0] == "rebuild" and b"is healthy" in q.stderr) \
                    and not (a[0] == "scrub" and q.returncode == 2 and (os.environ.get("EARLY2") or fail)):
                bad.append("finishing %s rc %d: %s" % (a[1], q.returncode, q.stderr.decode(errors="replace")[-400:].strip()))
        bad += check(d, files, "after kill")
        # a killed END (or START) may leave the window open: end it before a second failure
        # (window bytes on a failed OSS are lost by design)
        import json
        st = run(["status", d, "--json"])
        try:
            for w in json.loads(st.stdout).get("open_windows", []):
                e = run(["delayed", "end", d, w["token"]])
                if e.returncode:
                    bad.append("END after the kill rc %d: %s" % (e.returncode, e.stderr.decode(errors="replace")[-300:]))
        except ValueError:
            bad.append("status --json failed: %s" % st.stderr.decode(errors="replace")[-300:])
        s = run(["scrub", d])
        if s.returncode not in (0, 2):
            bad.append("scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
        failed_now = fail if name not in ("rebuild", "end") else ("" if name == "rebuild" else fail)
        if name == "end" and fail:
            failed_now = fail
        # The second failure only while the code has a failure to spare. Why: the command
        # itself may have recorded an OSS failed (an injected EIO absorbed as a failure);
        # counting only FAILOSS made raid5 EIO sweeps report the store's correct refusal of
        # a second failure beyond its tolerance as a problem (note6 OPEN 7).
        unhealthy, status_error = unhealthy_osses(d)
        bad += [status_error] if status_error else []
        down = set(unhealthy) | ({int(failed_now)} if failed_now else set())
        second = os.environ.get("SECOND", str((int(fail or 0) + 2) % noss))
        if int(second) in down and "SECOND" not in os.environ:
            second = str(next((o for o in range(noss) if o not in down), int(second)))
        if len(down) < tol and int(second) not in down:
            q = run(["fail", d, "--oss", second])
            if q.returncode != 0:
                bad.append("second fail rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
            else:
                bad += check(d, files, "second failure (OSS %s)" % second)
                q = run(["rebuild", d, "--oss", second])
                if q.returncode != 0:
                    bad.append("rebuild of the second rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
        if failed_now:
            q = run(["rebuild", d, "--oss", failed_now])
            if q.returncode != 0:
                bad.append("rebuild rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
        # OSSs the command itself recorded failed (an injected EIO absorbed as a failure)
        try:
            st = json.loads(run(["status", d, "--json"]).stdout)
            for o in st.get("oss", []):
                if not o.get("healthy", True):
                    q = run(["rebuild", d, "--oss", str(o["index"])])
                    if q.returncode != 0:
                        bad.append("rebuild of OSS %d (failed by the command) rc %d: %s" % (o["index"], q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
        except ValueError:
            bad.append("status --json failed")
        bad += check(d, files, "after rebuild")
        s = run(["scrub", d])
        if s.returncode != 0:
            bad.append("final scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-400:]))
        status = "killed" if killed else "rc %d" % p.returncode
        if bad:
            found += 1
            print("n=%d %s %s" % (n, status, where), flush=True)
            for b in bad:
                print("   ", b, flush=True)
            if os.environ.get("KEEP"):
                shutil.copytree(d, d + "-n%d" % n, dirs_exist_ok=True, symlinks=True)
        if killat and not killed:
            break  # n passed the command's last block write: it ran whole
    print("DONE %s %s oss=%d unit=%d %s %s seed %d%s: %d of %d kill points with problems (%d killed)" % (
        name, code, noss, unit, path, "tear" if tear else "plain", seed,
        " KILLAT=%s" % killat if killat else "", found, len(points) if not killat else n, killed_points), flush=True)
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
