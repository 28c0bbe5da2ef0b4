#!/usr/bin/env python3
"""Review tool (engineer s9s, not CI; brief item 1, s9f `cache_block_dead`): a write into a
cache block that fails its checksum and holds no live byte but the write's own is rewritten
as zeros. Hunt for a wrong "dead" verdict: a store (wcl or delayed) gets files, overwrites,
flushes (chunks freed, reused by later cache stripes), open delayed windows (PATH=delayed),
then random bit flips in random 4 KiB blocks of the cache zone files (payload bytes only:
offsets below the slot's crc area are not told apart, any byte may be hit), then more small
unaligned writes (their edge blocks are healed or zeroed), then every file is read (exit 0
must be exactly the acknowledged bytes), one OSS failed, read again, then scrub.
Usage: dead-cache-zero-fuzz.py ROUNDS [seed]
Env: EXARAID, CODE (default "raid6"), NOSS (6), PATH_KIND (wcl|delayed, default wcl), FLIPS
(blocks damaged, default 3), S9S_DIR (scratch, default /tmp/s9s-dcz).
Prints one line per WRONG (rc 0 with other bytes) and a DONE line."""
import glob, os, random, shutil, subprocess, sys

E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid")
D = os.environ.get("S9S_DIR", "/tmp/s9s-dcz")
CODE = os.environ.get("CODE", "raid6").split()
NOSS = int(os.environ.get("NOSS", "6"))
PK = os.environ.get("PATH_KIND", "wcl")
FLIPS = int(os.environ.get("FLIPS", "3"))
UNIT = int(os.environ.get("UNIT", "16384"))


def run(a, inp=b""):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, timeout=600)


rounds = int(sys.argv[1]); seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
stats = {"exact": 0, "refused": 0, "WRONG": 0, "wfail": 0, "lostrec": 0}
only = os.environ.get("ONLY")
for rnd in range(rounds):
    if only is not None and rnd != int(only):
        continue
    r = random.Random(seed * 100003 + rnd)
    shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    d = D + "/s"
    p = run(["init", d, "--oss", str(NOSS), "--code"] + CODE + ["--stripe-unit", str(UNIT),
            "--write-path", PK])
    assert p.returncode == 0, p.stderr
    files = {}
    nf = r.randrange(2, 5)
    for i in range(nf):
        b = r.randbytes(r.randrange(UNIT, UNIT * 12))
        assert run(["put", d, "f%d" % i], b).returncode == 0
        files["f%d" % i] = bytearray(b)
    log = []
    failed_writes = []

    def write(nm, off, w):
        p = run(["write", d, nm, "--offset", str(off)], w)
        log.append("write %s @%d len %d rc %d" % (nm, off, len(w), p.returncode))
        if p.returncode != 0:
            stats["wfail"] += 1
            failed_writes.append((nm, off, bytes(w)))
            log.append("  " + p.stderr.decode()[-300:].replace("\n", " | "))
            if os.environ.get("SHOWWFAIL"):
                print("round %d seed %d write %s @%d len %d rc %d: %s" % (rnd, seed, nm, off, len(w),
                      p.returncode, p.stderr.decode()[-500:].replace("\n", " | ")), flush=True)
            if os.environ.get("RETRY"):
                # What the error says to do: write again; then scrub --repair and again.
                q = run(["write", d, nm, "--offset", str(off)], w)
                sr = run(["scrub", d, "--repair"])
                q2 = run(["write", d, nm, "--offset", str(off)], w)
                print("   retry rc %d; scrub --repair rc %d (%s); retry after it rc %d %s" % (
                    q.returncode, sr.returncode, sr.stdout.decode()[-160:].replace("\n", " | "),
                    q2.returncode, q2.stderr.decode()[-160:]), flush=True)
                if q2.returncode == 0:
                    if len(files[nm]) < off + len(w):
                        files[nm].extend(b"\0" * (off + len(w) - len(files[nm])))
                    files[nm][off:off + len(w)] = w
            return False
        if len(files[nm]) < off + len(w):
            files[nm].extend(b"\0" * (off + len(w) - len(files[nm])))
        files[nm][off:off + len(w)] = w
        return True

    def overwrite(n, small=False):
        for _ in range(n):
            nm = "f%d" % r.randrange(nf)
            off = r.randrange(0, len(files[nm]) + 100)
            w = r.randbytes(r.randrange(1, 600 if small else UNIT * 2))
            write(nm, off, w)

    overwrite(r.randrange(2, 8))
    if r.random() < 0.7:
        assert run(["flush", d]).returncode == 0
        log.append("flush")
    overwrite(r.randrange(1, 6))
    if PK == "delayed":
        for i in range(nf):
            if r.random() < 0.6:
                p = run(["delayed", "start", d, "f%d" % i])
                log.append("start f%d rc %d %s" % (i, p.returncode, p.stdout.decode().strip()))
        overwrite(r.randrange(1, 6))
    if os.environ.get("PREFAIL"):
        # Degraded from here on: one OSS failed before the damage and the writes.
        pf = r.randrange(NOSS)
        log.append("prefail %d rc %d" % (pf, run(["fail", d, "--oss", str(pf)]).returncode))
    # Damage: bit flips in random 4 KiB blocks of cache zone files.
    caches = sorted(glob.glob("%s/oss-*/objects/*.cache" % d))
    if os.environ.get("FLIPALL") and caches:
        # One bit in EVERY 4 KiB block of one OSS's cache zone file: every edge block a
        # later write meets there is rotten (live ones must be rebuilt, dead ones zeroed).
        c = r.choice(caches)
        data = bytearray(open(c, "rb").read())
        for blk in range(len(data) // 4096):
            data[blk * 4096 + r.randrange(4096)] ^= 1 << r.randrange(8)
        open(c, "wb").write(data)
        log.append("flipall %s (%d blocks)" % (c[len(d):], len(data) // 4096))
        caches = []
    for _ in range(FLIPS):
        if not caches:
            break
        c = r.choice(caches)
        data = bytearray(open(c, "rb").read())
        if not data:
            continue
        blk = r.randrange(max(1, len(data) // 4096))
        at = blk * 4096 + r.randrange(min(4096, len(data) - blk * 4096))
        data[at] ^= 1 << r.randrange(8)
        open(c, "wb").write(data)
        log.append("flip %s @%d" % (c[len(d):], at))
    overwrite(r.randrange(2, 10), small=True)
    overwrite(r.randrange(0, 3))

    def check(when):
        for nm, exp in files.items():
            g = run(["get", d, nm])
            if g.returncode != 0:
                stats["refused"] += 1
                if b"LOST" in g.stderr or b"lost" in g.stderr:
                    stats["lostrec"] += 1
                if os.environ.get("SHOWREFUSED"):
                    print("round %d seed %d %s refused get %s: %s" % (rnd, seed, when, nm,
                          g.stderr.decode()[-400:].replace("\n", " | ")), flush=True)
                    print("   log: " + " ; ".join(log), flush=True)
            elif g.stdout == bytes(exp):
                stats["exact"] += 1
            else:
                stats["WRONG"] += 1
                diff = [i for i in range(min(len(exp), len(g.stdout))) if g.stdout[i] != exp[i]]
                zeros = sum(1 for i in diff if g.stdout[i] == 0)
                for (fn, fo, fw) in failed_writes:
                    if fn == nm:
                        got = g.stdout[fo:fo + len(fw)]
                        print("   failed write %s@%d+%d: the file holds its bytes there now: %s, zeros %d (all new %s, all old %s)" % (
                            fn, fo, len(fw), sum(1 for a, b in zip(got, fw) if a == b), got.count(0), got == fw,
                            got == bytes(exp[fo:fo + len(fw)])), flush=True)
                print("round %d seed %d %s WRONG get %s rc 0: %d bytes differ (%d read as 0) first %s "
                      "len %d vs %d" % (rnd, seed, when, nm, len(diff), zeros, diff[:1],
                                        len(g.stdout), len(exp)), flush=True)
                print("   log: " + " ; ".join(log), flush=True)

    check("healthy")
    failed = r.randrange(NOSS)
    f = run(["fail", d, "--oss", str(failed)])
    log.append("fail %d rc %d %s" % (failed, f.returncode, f.stdout.decode()[-200:].replace("\n", " | ")))
    check("failed-%d" % failed)
    s = run(["scrub", d])
    if s.returncode not in (0, 2):
        print("round %d scrub rc %d %s" % (rnd, s.returncode, s.stderr.decode()[-200:]), flush=True)
print("DONE %s %s rounds %d %s" % (PK, " ".join(CODE), rounds, stats), flush=True)
