#!/usr/bin/env python3
"""s16r: delayed windows open on many files with odd-size writes; OSS failures inside the windows
(one, then more up to the tolerance after the ENDs); checks: END names lost ranges only inside
bytes written in a window (no false LOST), every byte not named lost reads exact (per range reads),
a later get of a lost range refused; then rewrite the lost ranges, rebuild, scrub.
usage: EXARAID=... s16r-windows-mixed.py DIR CODEARGS NOSS FAILS_IN FAILS_AFTER [seed]"""
import os, random, re, subprocess, sys, shutil, json
B = os.environ["EXARAID"]; D = sys.argv[1]; CODE = sys.argv[2].split(); NOSS = int(sys.argv[3])
FIN = [int(x) for x in sys.argv[4].split(",") if x]; FAFT = [int(x) for x in sys.argv[5].split(",") if x]
seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1; rng = random.Random(seed)
def run(*a, inp=None):
    p = subprocess.run([B, "store", *a], input=inp, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")
shutil.rmtree(D, ignore_errors=True); os.makedirs(D); S = D + "/s"
rc, o, e = run("init", S, "--oss", str(NOSS), *CODE, "--stripe-unit", "4096", "--write-path", "delayed"); assert rc == 0, e
NF = 8; model = {}; winbytes = {}
for i in range(NF):
    n = f"f{i}"; data = os.urandom(rng.choice([0, 1, 4095, 4097, 16383, 16385, 50000, 123457]))
    rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data); winbytes[n] = set()
toks = {}
for n in model:
    rc, o, e = run("delayed", "start", S, n); assert rc == 0, e; toks[n] = o.decode().strip()
def wr(n, off, data, inwin):
    rc, o, e = run("write", S, n, "--offset", str(off), inp=data)
    if rc == 0:
        m = model[n]
        if len(m) < off: m.extend(bytes(off - len(m)))
        m[off:off + len(data)] = data
        if inwin: winbytes[n].update(range(off, off + len(data)))
    return rc, e
for step in range(40):
    n = rng.choice(list(model)); off = rng.randrange(0, 140000); ln = rng.choice([1, 100, 4095, 4096, 4097, 9000, 20000])
    rc, e = wr(n, off, os.urandom(ln), True)
    if rc: print("win write refused", n, e.strip()[:200])
    if step == 20:
        for f in FIN:
            rc, o, e = run("fail", S, "--oss", str(f)); print("fail", f, rc, e.strip()[:100])
lost = {}
problems = 0
for n, t in toks.items():
    rc, o, e = run("delayed", "end", S, t)
    rng_ = [(int(a), int(b)) for a, b in re.findall(rf"'{n}' bytes (\d+)\.\.(\d+)", e)]
    lost[n] = rng_
    print(f"end {n} rc {rc} lost {rng_[:6]}{'...' if len(rng_)>6 else ''}")
    for a, b in rng_:
        outside = [x for x in range(a, b) if x not in winbytes[n]]
        if outside: print(f"PROBLEM false LOST: {n} {a}..{b} has {len(outside)} bytes not written in the window (first {outside[:3]})"); problems += 1
rc, o, e = run("status", S, "--json"); st = json.loads(o)
print("status lost_ranges:", str(st.get("lost_ranges"))[:300])
def check(tag):
    global problems
    for n, m in model.items():
        L = lost[n]; isl = lambda x: any(a <= x < b for a, b in L)
        # read every maximal run of non-lost bytes
        x = 0
        while x < len(m):
            if isl(x): x += 1; continue
            y = x
            while y < len(m) and not isl(y) and y - x < 70000: y += 1
            rc, o, e = run("read", S, n, "--offset", str(x), "--length", str(y - x))
            if rc != 0: print(f"{tag}: PROBLEM read {n} {x}..{y} rc {rc}: {e.strip()[:200]}"); problems += 1
            elif o != bytes(m[x:y]): print(f"{tag}: PROBLEM WRONG {n} {x}..{y}"); problems += 1
            x = y
        for a, b in L[:2]:
            rc, o, e = run("read", S, n, "--offset", str(a), "--length", str(b - a))
            if rc == 0: print(f"{tag}: PROBLEM lost range {n} {a}..{b} read rc 0 (same={o==bytes(m[a:b])})"); problems += 1
check("after-end")
for f in FAFT:
    rc, o, e = run("fail", S, "--oss", str(f)); print("fail after", f, rc, e.strip()[:120])
check("after-more-fails")
for n, L in lost.items():
    for a, b in L:
        rc, e = wr(n, a, os.urandom(b - a), False)
        if rc: print("rewrite lost refused", n, a, b, e.strip()[:200])
    lost[n] = []
check("after-rewrite")
for f in FIN + FAFT:
    rc, o, e = run("rebuild", S, "--oss", str(f));
    if rc: print("rebuild", f, rc, e.strip()[:200])
check("after-rebuild")
rc, o, e = run("scrub", S); print("scrub rc", rc, o.decode().strip()[-160:])
print(f"DONE problems={problems}")
