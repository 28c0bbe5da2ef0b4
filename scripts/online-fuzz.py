#!/usr/bin/env python3
"""Review tool (engineer s8s, not CI): `store online` after a mistaken `fail` (s8f).
Per round: init (delayed or wcl), put files, delayed windows, writes inside a window, `fail` OSS X
(inside the open window), then while failed: writes (window and outside), put/replace, rm, flush,
END; then `online X` (optionally killed at the KILLN-th durable call by the killshim, or at a kill
point EXARAID_KILL_AT, then rerun). Checks: online exit 0 (or a clear refusal); every file reads
exactly (bytes outside status' lost ranges exact, lost ranges refuse); then the other m OSSs are
failed so reads must decode through the onlined OSS's columns: every byte exact again.
Usage: online-fuzz.py CODE ROUNDS [seed0]   CODE: raid5 raid6 rs:4:2
Env: INITARGS (more init options, e.g. "--window-timeout-ms 1"), DOUBLE=1 (a second OSS Y failed after X, more writes, online X then Y), EXARAID, REPRO_DIR (/tmp/s8s-of), SHIM (killshim .so) with KILLSWEEP=1 (kill online at
each call 1..N, rerun), KILLAT=point (EXARAID_KILL_AT=point:n for n=1..4), WPATH=delayed|wcl."""
import os, subprocess, sys, shutil, random, json

E = os.environ.get("EXARAID", "/work/share8/exaraid-s8int")
ROOT = os.environ.get("REPRO_DIR", "/tmp/s8s-of")
SHIM = os.environ.get("SHIM")
WPATH = os.environ.get("WPATH", "delayed")
UNIT = 4096


def run(args, inp=b"", env=None):
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env, timeout=120)


def cargs(spec):
    p = spec.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[2]), int(p[1]) + int(p[2])
    return ["--code", p[0]], (1 if p[0] == "raid5" else 2), (5 if p[0] == "raid5" else 6)


def lost_ranges(d):
    p = run(["status", d, "--json"])
    st = json.loads(p.stdout)
    return [(x["file"], x["offset_bytes"], x["offset_bytes"] + x["len_bytes"]) for x in st.get("lost_ranges", [])]


def check(d, exp, bad, tag):
    lost = lost_ranges(d)
    for name, b in exp.items():
        p = run(["get", d, name])
        if p.returncode == 0:
            if p.stdout != bytes(b):
                n = len(p.stdout)
                diff = [i for i in range(min(n, len(b))) if p.stdout[i] != b[i]]
                bad.append("%s WRONG BYTES get %s: len %d vs %d, first diff %s, lost %s" % (tag, name, n, len(b), diff[:1], lost))
            continue
        # read block by block outside lost ranges
        for off in range(0, len(b), UNIT):
            ln = min(UNIT, len(b) - off)
            inl = any(f == name and a < off + ln and off < z for f, a, z in lost)
            q = run(["read", d, name, "--offset", str(off), "--length", str(ln)])
            if q.returncode == 0 and q.stdout != bytes(b[off:off + ln]):
                bad.append("%s WRONG BYTES read %s @%d (lost-listed %s)" % (tag, name, off, inl))
            elif q.returncode != 0 and not inl:
                bad.append("%s read %s @%d refused, not listed lost: %s" % (tag, name, off, q.stderr.decode(errors="replace")[:200]))
    return lost


def one(code, seed):
    ca, m, n = cargs(code)
    d = os.path.join(ROOT, "r%d" % seed)
    shutil.rmtree(d, ignore_errors=True)
    r = random.Random(seed)
    bad, notes = [], []
    p = run(["init", d, "--oss", str(n), "--stripe-unit", str(UNIT), "--write-path", WPATH] + ca + os.environ.get("INITARGS", "").split())
    assert p.returncode == 0, p.stderr
    exp = {}
    for i in range(4):
        b = r.randbytes(r.randrange(UNIT, UNIT * 3 * n))
        assert run(["put", d, "f%d" % i], b).returncode == 0
        exp["f%d" % i] = bytearray(b)

    def wr(name, off, w):
        p = run(["write", d, name, "--offset", str(off)], w)
        if p.returncode == 0:
            f = exp.setdefault(name, bytearray())
            if len(f) < off + len(w):
                f.extend(b"\0" * (off + len(w) - len(f)))
            f[off:off + len(w)] = w
        return p

    toks = []
    if WPATH == "delayed":
        for name in ("f1", "f2"):
            toks.append(run(["delayed", "start", d, name]).stdout.decode().strip())
    for i in range(r.randrange(2, 6)):
        name = r.choice(["f1", "f2", "f0"])
        wr(name, r.randrange(0, len(exp[name]) + UNIT), r.randbytes(r.randrange(1, UNIT * 3)))
    X = r.randrange(n)
    p = run(["fail", d, "--oss", str(X)])
    assert p.returncode == 0, p.stderr
    ops = []
    for i in range(r.randrange(0, 7)):
        op = r.choice(["w", "w", "w", "put", "rm", "flush", "end", "newput"])
        ops.append(op)
        if op == "w":
            name = r.choice(list(exp))
            p = wr(name, r.randrange(0, len(exp[name]) + UNIT), r.randbytes(r.randrange(1, UNIT * 3)))
        elif op == "put":
            name = r.choice(list(exp))
            b = r.randbytes(r.randrange(1, UNIT * 2 * n))
            if run(["put", d, name], b).returncode == 0:
                exp[name] = bytearray(b)
        elif op == "newput":
            name = "g%d" % i
            b = r.randbytes(r.randrange(1, UNIT * 2 * n))
            if run(["put", d, name], b).returncode == 0:
                exp[name] = bytearray(b)
        elif op == "rm" and len(exp) > 1:
            name = r.choice(list(exp))
            if run(["rm", d, name]).returncode == 0:
                del exp[name]
        elif op == "flush":
            run(["flush", d])
        elif op == "end" and toks:
            run(["delayed", "end", d, toks.pop()])
    Y = None
    if os.environ.get("DOUBLE") and m >= 2:
        Y = r.choice([i for i in range(n) if i != X])
        run(["fail", d, "--oss", str(Y)])
        for i in range(r.randrange(0, 4)):
            name = r.choice(list(exp))
            wr(name, r.randrange(0, len(exp[name]) + UNIT), r.randbytes(r.randrange(1, UNIT * 3)))
        if r.random() < 0.5:
            run(["flush", d])
    lost_before = lost_ranges(d)
    notes.append("lost before online: %d, ops %s" % (len(lost_before), ops))
    # online, maybe killed
    kills = 0
    p = None
    if SHIM and os.environ.get("KILLSWEEP"):
        env = dict(os.environ, LD_PRELOAD=SHIM, KILLN=str(r.randrange(1, 60)))
        p = run(["online", d, "--oss", str(X)], env=env)
        kills += p.returncode == -9
        if p.returncode == -9:
            c = check(d, exp, bad, "after-kill(n=%s)" % env["KILLN"])
    elif os.environ.get("KILLAT"):
        env = dict(os.environ, EXARAID_KILL_AT="%s:%d" % (os.environ["KILLAT"], r.randrange(1, 4)))
        p = run(["online", d, "--oss", str(X)], env=env)
        kills += p.returncode not in (0, 1)
        if p.returncode not in (0, 1):
            check(d, exp, bad, "after-killpoint")
    if p is None or p.returncode != 0:
        p = run(["online", d, "--oss", str(X)])
    if p.returncode != 0 and kills and b"not recorded as failed" in p.stderr:
        notes.append("rerun after kill: already online (%s)" % p.stderr.decode(errors="replace")[:80])
    elif p.returncode != 0:
        notes.append("online refused rc=%d: %s" % (p.returncode, p.stderr.decode(errors="replace")[:300]))
        return bad, notes, kills
    if Y is not None:
        check(d, exp, bad, "after-online-X")
        q = run(["online", d, "--oss", str(Y)])
        if q.returncode != 0:
            notes.append("online Y refused rc=%d: %s" % (q.returncode, q.stderr.decode(errors="replace")[:300]))
            return bad, notes, kills
    lost_after = check(d, exp, bad, "after-online")
    if lost_after:
        notes.append("lost after online: %d (before %d)" % (len(lost_after), len(lost_before)))
    s = run(["scrub", d])
    if s.returncode != 0:
        bad.append("scrub after online rc=%d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[:300]))
    # fail m others: reads decode through X's columns
    others = [i for i in range(n) if i != X]
    r.shuffle(others)
    for o in others[:m]:
        run(["fail", d, "--oss", str(o)])
    check(d, exp, bad, "others-failed(X=%d)" % X)
    shutil.rmtree(d, ignore_errors=True)
    return bad, notes, kills


if __name__ == "__main__":
    code, rounds = sys.argv[1], int(sys.argv[2])
    s0 = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    os.makedirs(ROOT, exist_ok=True)
    nbad = nref = nk = 0
    for s in range(s0, s0 + rounds):
        try:
            bad, notes, k = one(code, s)
        except Exception as ex:
            bad, notes, k = ["EXC %r" % ex], [], 0
        nk += k
        for b in bad:
            print("seed %d BAD %s" % (s, b), flush=True)
        for x in notes:
            print("seed %d note %s" % (s, x), flush=True)
        nbad += bool(bad)
        nref += any("refused" in x for x in notes)
    print("%s %s rounds %d bad %d refused %d kills %d" % (code, WPATH, rounds, nbad, nref, nk))
