#!/usr/bin/env python3
"""s17r: delayed windows, OSS F failed inside them (LOST named), END; then degraded writes that
overwrite PARTS of the lost ranges (and other bytes); then `online --oss F` takes back the rest
from F's cache zone. Every byte must read as the model (the later writes win; taken-back bytes are
the window's), or be refused only inside a range still named LOST. Then rebuild-free checks: scrub,
and another OSS failed so F's columns are decoded/read.
usage: EXARAID=... s17r-online-takeback.py DIR SEED [CODE="--code rs --k 4 --m 3 --oss 7"] [F=2]"""
import os, random, subprocess, sys, shutil, re
B = os.environ["EXARAID"]; D = sys.argv[1]; seed = int(sys.argv[2])
CODE = (sys.argv[3] if len(sys.argv) > 3 else "--code rs --k 4 --m 3 --oss 7").split(); F = int(sys.argv[4]) if len(sys.argv) > 4 else 2
rng = random.Random(seed)
def run(*a, inp=None):
    p = subprocess.run([B, "store", *a], input=inp, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")
shutil.rmtree(D, ignore_errors=True); os.makedirs(D)
S = D + "/s"
rc, o, e = run("init", S, *CODE, "--stripe-unit", "4096", "--write-path", "delayed"); assert rc == 0, e
model = {}; toks = {}
for n in "abc":
    data = os.urandom(rng.randrange(1, 80000)); rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data)
for n in "abc":
    rc, o, e = run("delayed", "start", S, n); assert rc == 0, e; toks[n] = o.decode().strip()
def wr(n, off, data):
    rc, o, e = run("write", S, n, "--offset", str(off), inp=data)
    if rc == 0:
        m = model[n]
        if len(m) < off: m.extend(bytes(off - len(m)))
        m[off:off + len(data)] = data
    return rc, e
for i in range(15):
    n = rng.choice("abc"); wr(n, rng.randrange(0, 100000), os.urandom(rng.randrange(1, 12000)))
rc, o, e = run("fail", S, "--oss", str(F)); print("fail", rc, e.strip()[:120])
lost = {n: [] for n in "abc"}
def parse_lost(text):
    for mm in re.finditer(r"'([abc])' bytes (\d+)\.\.(\d+)", text):
        lost[mm.group(1)].append((int(mm.group(2)), int(mm.group(3))))
parse_lost(o.decode() + e)
for n in "abc":
    rc, o, e = run("delayed", "end", S, toks[n]); parse_lost(e)
print("lost after END:", {k: v[:6] for k, v in lost.items()})
# degraded writes over parts of the lost ranges
nw = 0
for n in "abc":
    for (a, b) in lost[n][:3]:
        off = rng.randrange(a, b); ln = rng.randrange(1, max(2, (b - off) // 2 + 1))
        rc, e = wr(n, off, os.urandom(ln)); nw += 1
        if rc: print("overwrite refused", n, off, ln, e.strip()[:200])
for i in range(5):
    n = rng.choice("abc"); wr(n, rng.randrange(0, 100000), os.urandom(rng.randrange(1, 6000)))
rc, o, e = run("online", "--oss", str(F), S) if False else run("online", S, "--oss", str(F))
print("online rc", rc, (o.decode() + e).strip()[:300])
rc, o, e = run("status", S); still = [l for l in o.decode().splitlines() if l.startswith("LOST")]
print("LOST after online:", still[:6])
lost2 = {n: [] for n in "abc"}
for l in still:
    mm = re.match(r"LOST: '([abc])' bytes (\d+)\.\.(\d+)", l)
    if mm: lost2[mm.group(1)].append((int(mm.group(2)), int(mm.group(3))))
def check(tag):
    bad = 0
    for n, m in model.items():
        for off in range(0, len(m), 4096):
            ln = min(4096, len(m) - off)
            rc, o, e = run("read", S, n, "--offset", str(off), "--length", str(ln))
            if rc == 0:
                if o != bytes(m[off:off + ln]):
                    d = [i for i in range(ln) if o[i] != m[off + i]]
                    print(f"{tag}: WRONG BYTES {n}@{off}: {len(d)} differ, first {off + d[0]}"); bad += 1
            elif not any(a < off + ln and off < b for a, b in lost2[n]):
                print(f"{tag}: {n}@{off} refused, not LOST on record: {e.strip()[:200]}"); bad += 1
    return bad
bad = check("after online")
rc, o, e = run("scrub", S); print("scrub rc", rc, o.decode().strip().splitlines()[-1][:200])
others = [i for i in range(int(CODE[CODE.index('--oss') + 1])) if i != F][:2]
for x in others: run("fail", S, "--oss", str(x))
bad += check(f"OSS {others} failed")
print(f"DONE seed {seed} bad={bad}")
shutil.rmtree(D, ignore_errors=True)
