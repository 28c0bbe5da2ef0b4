#!/usr/bin/env python3
"""Review tool (engineer s9s, not CI; brief item 1 + crash): dead-cache-zero-fuzz.py's scene
(files, overwrites, a flush, more overwrites; PATH_KIND=delayed also windows), then one bit flipped
in every 4 KiB block of one OSS's cache zone file, then a small unaligned write killed -9 (kill
shim) at every durable call K. After each kill: every file read (exit 0: every byte outside the
killed write's range exact, inside it old or new per byte), then one more OSS failed and every
file read again. Rot in the written block itself makes the cut write's own range undecidable:
refusals are counted, never an error; WRONG (exit 0 with other bytes) is the bug.
Usage: dead-cache-zero-kill.py SEED [KMAX]   Env: EXARAID, SHIM, CODE (raid6), PATH_KIND (wcl),
S9S_DIR (/tmp/s9s-dczk), UNIT (16384), WRITES (small writes tried, default 4)."""
import glob, os, random, shutil, subprocess, sys

E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s9s-killshim.so")
D = os.environ.get("S9S_DIR", "/tmp/s9s-dczk")
CODE = os.environ.get("CODE", "raid6").split()
PK = os.environ.get("PATH_KIND", "wcl")
UNIT = int(os.environ.get("UNIT", "16384"))
NOSS = 6


def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=600)


seed = int(sys.argv[1]); kmax = int(sys.argv[2]) if len(sys.argv) > 2 else 40
r = random.Random(seed)
shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
d = D + "/s"; pristine = D + "/pristine"
assert run(["init", d, "--oss", str(NOSS), "--code"] + CODE + ["--stripe-unit", str(UNIT),
           "--write-path", PK]).returncode == 0
files = {}
nf = 3
for i in range(nf):
    b = r.randbytes(r.randrange(UNIT, UNIT * 10))
    assert run(["put", d, "f%d" % i], b).returncode == 0
    files["f%d" % i] = bytearray(b)


def write(nm, off, w):
    p = run(["write", d, nm, "--offset", str(off)], w)
    if p.returncode == 0:
        if len(files[nm]) < off + len(w):
            files[nm].extend(b"\0" * (off + len(w) - len(files[nm])))
        files[nm][off:off + len(w)] = w
    return p.returncode


for _ in range(r.randrange(2, 7)):
    nm = "f%d" % r.randrange(nf); write(nm, r.randrange(len(files[nm])), r.randbytes(r.randrange(1, UNIT * 2)))
run(["flush", d])
if PK == "delayed":
    for i in range(nf):
        run(["delayed", "start", d, "f%d" % i])
for _ in range(r.randrange(2, 7)):
    nm = "f%d" % r.randrange(nf); write(nm, r.randrange(len(files[nm])), r.randbytes(r.randrange(1, UNIT * 2)))
caches = sorted(c for c in glob.glob("%s/oss-*/objects/*.cache" % d) if os.path.getsize(c) > 0)
c = r.choice(caches)
data = bytearray(open(c, "rb").read())
for blk in range(len(data) // 4096):
    data[blk * 4096 + r.randrange(4096)] ^= 1 << r.randrange(8)
open(c, "wb").write(data)
print("flipped every block of", c[len(d):], flush=True)
shutil.copytree(d, pristine)
stats = {"cases": 0, "exact": 0, "refused": 0, "WRONG": 0, "notkilled": 0}
for wi in range(int(os.environ.get("WRITES", "4"))):
    nm = "f%d" % r.randrange(nf)
    off = r.randrange(len(files[nm])); w = r.randbytes(r.randrange(1, 700))
    for k in range(1, kmax + 1):
        shutil.rmtree(d); shutil.copytree(pristine, d)
        p = run(["write", d, nm, "--offset", str(off)], w, {"LD_PRELOAD": SHIM, "KILLN": str(k)})
        if p.returncode != -9:
            stats["notkilled"] += 1
            if p.returncode == 0:
                break
        stats["cases"] += 1
        for when in ("healthy", "failed"):
            if when == "failed":
                fo = (int(c.split("/oss-")[1].split("/")[0]) + 1 + r.randrange(NOSS - 1)) % NOSS
                run(["fail", d, "--oss", str(fo)])
            for f2, exp in files.items():
                g = run(["get", d, f2])
                if g.returncode != 0:
                    stats["refused"] += 1
                    continue
                got = g.stdout
                ok = len(got) in (len(exp), max(len(exp), off + len(w)) if f2 == nm else len(exp))
                bad = []
                for i in range(min(len(got), max(len(exp), len(got)))):
                    old = exp[i] if i < len(exp) else 0
                    new = w[i - off] if (f2 == nm and off <= i < off + len(w)) else old
                    if got[i] not in (old, new):
                        bad.append(i)
                if bad or not ok:
                    stats["WRONG"] += 1
                    print("write %d %s@%d+%d K=%d %s WRONG get %s rc 0: %d bytes (zeros %d) first %s len %d vs %d" % (
                        wi, nm, off, len(w), k, when, f2, len(bad), sum(1 for i in bad if got[i] == 0),
                        bad[:1], len(got), len(exp)), flush=True)
                else:
                    stats["exact"] += 1
    # The write done for real (unkilled) before the next one.
    shutil.rmtree(d); shutil.copytree(pristine, d)
    if write(nm, off, w) == 0:
        shutil.rmtree(pristine); shutil.copytree(d, pristine)
print("DONE seed %d %s %s %s" % (seed, PK, " ".join(CODE), stats), flush=True)
