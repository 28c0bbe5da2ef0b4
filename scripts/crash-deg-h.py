#!/usr/bin/env python3
"""Review tool (engineer h, not CI): kill one store command at its N-th durable call
(LD_PRELOAD killshim from s3d: scripts/killshim-d.c; plain or torn pwrite) for N = 1.. until
it finishes, with one OSS failed before the command (degraded home writes, the failed-column
copies); then check acknowledged bytes, a SECOND failure, rebuild, scrub.
Usage: crash-deg-h.py SCENARIO CODE PATH [plain|tear] [seed] [maxn]
  SCENARIO: write (killed write), put (killed put over f), putnew (killed put of a new name),
            rm (killed rm of g), winwrite (delayed: killed write inside a window, END after),
            end (delayed: killed END), flush (wcl: killed flush after writes)
Env: EXARAID (binary), SHIM (killshim.so), FAILOSS (0), SECOND (OSS of the second failure),
     H_DIR (scratch, default /tmp/h/cd)."""
import os, subprocess, sys, shutil, random

E = os.environ.get("EXARAID", "/work/target-h/debug/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/h/killshim.so")
CODES = {
    "raid5": (["--code", "raid5"], 4, 1), "raid6": (["--code", "raid6"], 5, 2),
    "rs": (["--code", "rs", "--k", "4", "--m", "2"], 6, 2),
    "evenodd": (["--code", "evenodd", "--p", "5"], 7, 2), "rdp": (["--code", "rdp", "--p", "5"], 6, 2),
    "xcode": (["--code", "xcode", "--p", "5"], 5, 2), "dcode": (["--code", "dcode", "--p", "5"], 5, 2),
    "hdp": (["--code", "hdp", "--p", "5"], 4, 2), "hcode": (["--code", "hcode", "--p", "5"], 6, 2),
}


def run(args, inp=b"", kill_n=None, tear=False):
    env = dict(os.environ)
    if kill_n is not None:
        env.update(LD_PRELOAD=SHIM, KILLN=str(kill_n), KILLTEAR="1" if tear else "0")
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env)


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def must(p):
    assert p.returncode == 0, p.stderr.decode(errors="replace")
    return p


def check(d, files, label):
    """files: name -> list of allowed contents (None = absent) or ("mix", old, new)."""
    bad = []
    names = set(run(["ls", d]).stdout.decode().split())
    for nm, acc in files.items():
        g = run(["get", d, nm])
        if g.returncode != 0:
            if isinstance(acc, list) and None in acc and nm not in names:
                continue
            bad.append("%s: get %s rc %d: %s" % (label, nm, g.returncode, g.stderr.decode(errors="replace")[-400:].strip()))
            continue
        act = g.stdout
        if isinstance(acc, tuple):
            _, old, new = acc
            n = max(len(old), len(new))
            o2 = old + b"\0" * (n - len(old))
            badb = [i for i in range(min(len(act), n)) if act[i] != new[i] and act[i] != o2[i]]
            if len(act) not in (len(old), len(new)) or badb:
                bad.append("%s: get %s WRONG BYTES exit 0: len %d (old %d new %d) %d bad, first %s last %s" % (
                    label, nm, len(act), len(old), len(new), len(badb), badb[:1], badb[-1:]))
            continue
        if not any(a is not None and act == a for a in acc):
            bad.append("%s: get %s WRONG BYTES exit 0 (len %d, allowed %s)" % (
                label, nm, len(act), [None if a is None else len(a) for a in acc]))
    return bad


def setup(name, code, path, seed, d):
    cargs, noss, tol = CODES[code]
    shutil.rmtree(d, ignore_errors=True)
    base = rnd(seed, 50000)
    extra = ["--window-timeout-ms", "600000"]
    must(run(["init", d, "--oss", str(noss), "--stripe-unit", "4096", "--write-path", path] + cargs + extra))
    must(run(["put", d, "f"], base))
    g = rnd(seed + 1, 30000)
    must(run(["put", d, "g"], g))
    files = {"f": [base], "g": [g]}
    fail = os.environ.get("FAILOSS", "0")
    if name != "end":
        must(run(["fail", d, "--oss", fail]))
    tok = None
    if name in ("winwrite", "end"):
        tok = must(run(["delayed", "start", d, "f"])).stdout.decode().strip()
    exp = bytearray(base)
    r = random.Random(seed)
    for i in range(4):
        off = r.randrange(0, len(base) - 5000)
        w = rnd(seed + 10 + i, r.randrange(1, 9000))
        p = run(["write", d, "f", "--offset", str(off)], w)
        if p.returncode != 0:  # a window write whose only copy would be on the failed OSS
            continue
        exp[off:off + len(w)] = w
    files["f"] = [bytes(exp)]
    after = []
    if name == "end":
        must(run(["fail", d, "--oss", fail]))
        return files, ["delayed", "end", d, tok], b"", after
    if tok:
        after = [["delayed", "end", d, tok]]
    if name in ("write", "winwrite"):
        off = r.randrange(0, len(base))
        w = rnd(seed + 30, r.randrange(1, 20000))
        new = bytearray(exp)
        if len(new) < off + len(w):
            new.extend(b"\0" * (off + len(w) - len(new)))
        new[off:off + len(w)] = w
        files["f"] = ("mix", bytes(exp), bytes(new))
        return files, ["write", d, "f", "--offset", str(off)], w, after
    if name == "put":
        nb = rnd(seed + 9, 33000)
        files["f"] = [bytes(exp), nb]
        return files, ["put", d, "f"], nb, after
    if name == "putnew":
        nb = rnd(seed + 9, 33000)
        files["h"] = [None, nb]
        return files, ["put", d, "h"], nb, after
    if name == "rm":
        files["g"] = [g, None]
        return files, ["rm", d, "g"], b"", after
    if name == "flush":
        return files, ["flush", d], b"", after
    raise SystemExit("unknown scenario " + name)


def main():
    name, code, path = sys.argv[1], sys.argv[2], sys.argv[3]
    tear = len(sys.argv) > 4 and sys.argv[4] == "tear"
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 7
    maxn = int(sys.argv[6]) if len(sys.argv) > 6 else 400
    _, noss, tol = CODES[code]
    d = os.path.join(os.environ.get("H_DIR", "/tmp/h/cd"), "%s-%s-%s" % (name, code, path))
    found = 0
    for n in range(int(os.environ.get("STARTN", "1")), maxn + 1):
        files, cmd, inp, after = setup(name, code, path, seed, d)
        p = run(cmd, inp, kill_n=n, tear=tear)
        killed = p.returncode == -9
        where = [l for l in p.stderr.decode(errors="replace").splitlines() if "KILLSHIM" in l]
        if not killed:
            if p.returncode == 0:
                if name in ("write", "winwrite"):
                    files["f"] = [files["f"][2]]
                elif name in ("put", "putnew"):
                    files["f" if name == "put" else "h"] = [inp]
                elif name == "rm":
                    files["g"] = [None]
        if os.environ.get("H_SELFTEST") and name in ("write", "winwrite") and killed:
            files["f"] = [files["f"][2]]  # pretend the killed write was acknowledged: must fail
        bad = []
        for a in after:
            q = run(a)
            if q.returncode != 0:
                bad.append("after %s rc %d: %s" % (a[1], q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
        bad += check(d, files, "after kill")
        s = run(["scrub", d])
        if s.returncode not in (0, 2):
            bad.append("scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
        fail = os.environ.get("FAILOSS", "0")
        second = os.environ.get("SECOND", str((int(fail) + 2) % noss))
        if tol >= 2:
            q = run(["fail", d, "--oss", second])
            if q.returncode != 0:
                bad.append("second fail rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
            else:
                bad += check(d, files, "second failure")
                q = run(["rebuild", d, "--oss", second])
                if q.returncode != 0:
                    bad.append("rebuild of the second rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
        q = run(["rebuild", d, "--oss", fail])
        if q.returncode != 0 and name != "end" or (name == "end" and q.returncode != 0 and "healthy" not in q.stderr.decode()):
            bad.append("rebuild rc %d: %s" % (q.returncode, q.stderr.decode(errors="replace")[-300:].strip()))
        bad += check(d, files, "after rebuild")
        s = run(["scrub", d])
        if s.returncode != 0:
            bad.append("final scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
        status = "killed" if killed else "rc %d" % p.returncode
        if bad:
            found += 1
            print("n=%d %s %s" % (n, status, where), flush=True)
            for b in bad:
                print("   ", b, flush=True)
            if os.environ.get("KEEP"):
                shutil.copytree(d, d + "-n%d" % n, dirs_exist_ok=True)
        if not killed:
            print("%s %s %s %s: finished at n=%d (%s); %d kill points with problems" % (
                name, code, path, "tear" if tear else "plain", n, status, found), flush=True)
            break
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
