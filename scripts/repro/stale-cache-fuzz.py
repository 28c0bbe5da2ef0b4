#!/usr/bin/env python3
"""Review tool (s13r, not CI): lost writes in WCL cache zones (R11-9's cache part, fixed in
session 12 by stale_cache.rs) over every code, stripe unit and write mix.

A round: init (CODE, NOSS, a random unit), put 2-3 files, random overwrites; snapshot the
cache zone files of one OSS; more overwrites; put the snapshot back (the OSS "lost" those
writes: old bytes under valid checksums); optionally more writes (which may complete and
destage a cache stripe); then `flush` and read every file. A stale cache element may read
stale before any move home (documented), but after the flush every file must read the
acknowledged bytes, or fail naming the loss: never other bytes with exit 0. Scrub after.

Usage: stale-cache-fuzz.py ROUNDS [seed]
Env: CODE ("raid6", "rs --k 4 --m 3", "dcode --p 5", ...), NOSS, EXARAID, DIR (scratch),
UNITS (comma list, default 4096,16384,65536), FAILAFTER=1 (fail another OSS after the flush
and read again, degraded).
OVERLAP=1: the AFTER writes overwrite parts of the lost writes (R13-1); ONLY=N: round N alone; KEEP=1: a copy of the store before the flush in DIR/before-flush.\nPrints WRONG / NOTE lines and a DONE line."""
import glob, os, random, shutil, subprocess, sys

E = os.environ.get("EXARAID", "target/release/exaraid")
D = os.environ.get("DIR", "/tmp/s13r-stale-fuzz")
CODE = os.environ.get("CODE", "raid6").split()
NOSS = int(os.environ.get("NOSS", "6"))
UNITS = [int(u) for u in os.environ.get("UNITS", "4096,16384,65536").split(",")]
FAILAFTER = os.environ.get("FAILAFTER") == "1"
# ZONE=data WPATH=rmw MOVE=repair: lost HOME writes on rmw, then `scrub --repair` instead of
# the flush (review s13r R13-4; R11-9's home part).
ZONE = os.environ.get("ZONE", "cache")
WPATH = os.environ.get("WPATH", "wcl")
MOVE = os.environ.get("MOVE", "flush")


def run(a, inp=b""):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True)


rounds = int(sys.argv[1]); seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
stats = {"exact": 0, "refused": 0, "wrong": 0, "flushfail": 0, "scrubbad": 0}
ONLY = os.environ.get("ONLY")  # run round ONLY alone (rounds are seeded one by one)
for rnd in range(rounds):
    if ONLY is not None and rnd != int(ONLY):
        continue
    r = random.Random(seed * 1000 + rnd)
    d = D + "/s"
    shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    unit = r.choice(UNITS)
    p = run(["init", d, "--oss", str(NOSS), "--code"] + CODE + ["--stripe-unit", str(unit), "--write-path", WPATH])
    assert p.returncode == 0, p.stderr
    files = {}
    for i in range(r.randrange(2, 4)):
        b = r.randbytes(r.randrange(unit, unit * 12))
        assert run(["put", d, "f%d" % i], b).returncode == 0
        files["f%d" % i] = bytearray(b)
    log = []

    def overwrite(n, tag):
        for _ in range(n):
            nm = r.choice(sorted(files))
            off = r.randrange(0, len(files[nm]) + unit)
            w = r.randbytes(r.choice([r.randrange(1, 4097), r.randrange(1, unit * 3)]))
            p = run(["write", d, nm, "--offset", str(off)], w)
            if p.returncode != 0:
                print("round %d: write %s %d+%d rc %d: %s" % (rnd, nm, off, len(w), p.returncode, p.stderr.decode().strip()[:300]))
                return False
            log.append((tag, nm, off, len(w)))
            if len(files[nm]) < off + len(w):
                files[nm].extend(b"\0" * (off + len(w) - len(files[nm])))
            files[nm][off:off + len(w)] = w
        return True

    if not overwrite(r.randrange(0, 5), "pre"):
        continue
    victim = r.randrange(NOSS)
    snap = {}
    for c in glob.glob("%s/oss-%d/objects/*.%s" % (d, victim, ZONE)):
        snap[c] = open(c, "rb").read()
    before_lost = {nm: bytes(b) for nm, b in files.items()}
    if not overwrite(r.randrange(1, 6), "lost"):
        continue
    for c, b in snap.items():
        if os.environ.get("NODAMAGE") != "1":  # NODAMAGE=1: the control, nothing lost
            open(c, "wb").write(b)
    if os.environ.get("OVERLAP") == "1":
        # R13-1: acknowledged overwrites of (part of) the lost writes' ranges.
        lost = [x for x in log if x[0] == "lost"]
        for _ in range(int(os.environ.get("AFTER", "2"))):
            _, nm, off, n = r.choice(lost)
            a = off + r.randrange(0, max(1, n // 2))
            w = r.randbytes(r.randrange(1, n + 1))
            p = run(["write", d, nm, "--offset", str(a)], w)
            if p.returncode != 0:
                print("round %d: overlap write rc %d" % (rnd, p.returncode))
                break
            log.append(("after", nm, a, len(w)))
            if len(files[nm]) < a + len(w):
                files[nm].extend(b"\0" * (a + len(w) - len(files[nm])))
            files[nm][a:a + len(w)] = w
    elif not overwrite(r.randrange(0, int(os.environ.get("AFTER", "2")) + 1), "after"):
        continue
    if os.environ.get("PRECHECK", "1") == "1":
        # Documented: stale reads before any move home; counted to show the damage took.
        for nm, exp in sorted(files.items()):
            g = run(["get", d, nm])
            if g.returncode == 0 and g.stdout != bytes(exp):
                stats["stale_before"] = stats.get("stale_before", 0) + 1
    if os.environ.get("KEEP"):
        shutil.copytree(d, D + "/before-flush")
    p = run(["flush", d]) if MOVE == "flush" else run(["scrub", d, "--repair"])
    if MOVE != "flush" and p.returncode == 2:
        print("round %d: scrub --repair rc 2 (unrepairable, reported): %s" % (rnd, p.stdout.decode().strip()[-200:]))
    elif p.returncode != 0:
        stats["flushfail"] += 1
        print("round %d: flush rc %d: %s" % (rnd, p.returncode, p.stderr.decode().strip()[:300]))

    def check(when):
        for nm, exp in sorted(files.items()):
            g = run(["get", d, nm])
            if g.returncode == 0:
                if g.stdout == bytes(exp):
                    stats["exact"] += 1
                else:
                    bad = [i for i in range(min(len(g.stdout), len(exp))) if g.stdout[i] != exp[i]]
                    stats["wrong"] += 1
                    old = before_lost.get(nm, b"")
                    a, z = bad[0], bad[-1] + 1
                    print("  the wrong bytes %d..%d are the bytes from before the lost writes: %s" % (a, z, g.stdout[a:z] == old[a:z]))
                    print("WRONG round %d seed %d unit %d victim %d %s: %s rc 0, %d bytes differ (first %s, last %s), len %d vs %d; log %s" % (
                        rnd, seed, unit, victim, when, nm, len(bad), bad[:1], bad[-1:], len(g.stdout), len(exp), log))
            else:
                stats["refused"] += 1
                print("round %d %s: get %s rc %d: %s" % (rnd, when, nm, g.returncode, g.stderr.decode().strip()[:200]))

    check("after " + MOVE)
    s = run(["scrub", d])
    if s.returncode != 0:
        stats["scrubbad"] += 1
        print("round %d: scrub rc %d: %s" % (rnd, s.returncode, (s.stdout + s.stderr).decode().strip()[-300:]))
    if FAILAFTER:
        other = (victim + 1 + r.randrange(NOSS - 1)) % NOSS
        run(["fail", d, "--oss", str(other)])
        check("oss %d failed" % other)
print("DONE rounds %d code %s noss %d: %s" % (rounds, " ".join(CODE), NOSS, stats))
