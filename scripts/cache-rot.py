#!/usr/bin/env python3
"""Review tool (engineer s5s, not CI): WCL cache-stripe rot with a failed OSS (brief item 3,
R5 fix: the parity check narrowed to the checksum blocks read). A WCL store gets files and
overwrites (bytes sit in cache zone files), one OSS is failed, then one cache zone file of
another OSS is damaged: MODE=flip (random bit flips, payload or crc area), MODE=stale (the
whole cache file put back to a copy taken before the last overwrites: stale bytes under
valid checksums), MODE=zero (a 4 KiB run zeroed). Every file is then read with `get`:
exit 0 must give exactly the acknowledged bytes (a nonzero exit with a clear error is fine).
Usage: cache-rot.py ROUNDS [seed]   Env: CODE (init code flags, default "raid6 --k 4"), NOSS
(default 6), MODE (flip|stale|zero, default flip), EXARAID, S5S_DIR (scratch, default: s5s-rot
under $REPRO_DIR or a new temporary directory).
Prints WRONG lines and a DONE line: rounds, gets exact, gets refused, gets WRONG."""
import glob, os, random, shutil, subprocess, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)

E = os.environ.get("EXARAID", "/work/target-s5r/release/exaraid")
D = os.environ.get("S5S_DIR") or scratch("s5s-rot")
MODE = os.environ.get("MODE", "flip")
CODE = os.environ.get("CODE", "raid6 --k 4").split()
NOSS = int(os.environ.get("NOSS", "6"))


def run(a, inp=b""):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True)


rounds = int(sys.argv[1]); seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
exact = refused = wrong = 0
for rnd in range(rounds):
    r = random.Random(seed * 1000 + rnd)
    d = D + "/s"
    shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
    unit = 65536
    assert run(["init", d, "--oss", str(NOSS), "--code"] + CODE + ["--stripe-unit", str(unit), "--write-path", "wcl"]).returncode == 0
    files = {}
    for i in range(3):
        b = r.randbytes(r.randrange(unit, unit * 9))
        assert run(["put", d, "f%d" % i], b).returncode == 0
        files["f%d" % i] = bytearray(b)

    def overwrite(n):
        for _ in range(n):
            nm = "f%d" % r.randrange(3)
            off = r.randrange(0, len(files[nm]))
            w = r.randbytes(r.randrange(1, unit))
            p = run(["write", d, nm, "--offset", str(off)], w)
            assert p.returncode == 0, p.stderr
            if len(files[nm]) < off + len(w):
                files[nm].extend(b"\0" * (off + len(w) - len(files[nm])))
            files[nm][off:off + len(w)] = w

    overwrite(r.randrange(1, 5))
    failed = r.randrange(NOSS)
    victim = r.choice([i for i in range(NOSS) if i != failed])
    caches = glob.glob("%s/oss-%d/objects/*.cache" % (d, victim))
    snap = {c: open(c, "rb").read() for c in caches}
    overwrite(r.randrange(1, 4))
    assert run(["fail", d, "--oss", str(failed)]).returncode == 0
    caches = glob.glob("%s/oss-%d/objects/*.cache" % (d, victim))
    what = "no cache file"
    if caches:
        c = r.choice(caches)
        data = bytearray(open(c, "rb").read())
        if MODE == "stale" and c in snap:
            data = bytearray(snap[c]) + data[len(snap[c]):]
            what = "stale %s" % c
        elif MODE == "zero" and len(data) > 4096:
            at = r.randrange(len(data) - 4096)
            data[at:at + 4096] = bytes(4096)
            what = "zero %s @%d" % (c, at)
        elif len(data):
            at = [r.randrange(len(data)) for _ in range(r.randrange(1, 4))]
            for a in at:
                data[a] ^= 1 << r.randrange(8)
            what = "flip %s @%s" % (c, at)
        open(c, "wb").write(data)
    for nm, exp in files.items():
        g = run(["get", d, nm])
        if g.returncode != 0:
            refused += 1
        elif g.stdout == bytes(exp):
            exact += 1
        else:
            wrong += 1
            diff = [i for i in range(min(len(exp), len(g.stdout))) if g.stdout[i] != exp[i]]
            # Diagnosis: the failed OSS back (`online`: nothing written since): a healthy read
            # returns a stale element's bytes by design (docs/store.md, "Checksums are not
            # versioned"); wrong bytes only while degraded came through the decode.
            on = run(["online", d, "--oss", str(failed)])
            h = run(["get", d, nm])
            hdiff = [i for i in range(min(len(exp), len(h.stdout))) if h.stdout[i] != exp[i]]
            through = sorted(set(diff) - set(hdiff))
            print("round %d WRONG get %s rc 0 (failed OSS %d, %s): %d bytes differ from %s, len %d vs %d; "
                  "healthy get (online rc %d) rc %d: %d differ; %d wrong only while degraded (from %s)" % (
                rnd, nm, failed, what, len(diff), diff[:1], len(g.stdout), len(exp), on.returncode,
                h.returncode, len(hdiff), len(through), through[:1]), flush=True)
            run(["fail", d, "--oss", str(failed)])
print("DONE %s rounds %d exact %d refused %d WRONG %d" % (MODE, rounds, exact, refused, wrong))
