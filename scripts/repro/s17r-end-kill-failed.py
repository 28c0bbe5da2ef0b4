#!/usr/bin/env python3
"""s17r: delayed windows on 3 files, the code's whole tolerance of OSSs failed inside them (LOST
named), END of each killed -9 at a random instant (then run again), then every 4 KiB piece read:
the model's bytes, or refused only inside a range named LOST (END/status). Then rebuilds, scrub.
usage: EXARAID=... s17r-end-kill-failed.py DIR SEED [CODE="--code rs --k 4 --m 3 --oss 7"] [FAILS=1,4,5]"""
import os, random, subprocess, sys, shutil, re, time
B = os.environ["EXARAID"]; D = sys.argv[1]; seed = int(sys.argv[2])
CODE = (sys.argv[3] if len(sys.argv) > 3 else "--code rs --k 4 --m 3 --oss 7").split()
FAILS = [int(x) for x in (sys.argv[4] if len(sys.argv) > 4 else "1,4,5").split(",")]
rng = random.Random(seed)
def run(*a, inp=None):
    p = subprocess.run([B, "store", *a], input=inp, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")
shutil.rmtree(D, ignore_errors=True); os.makedirs(D); S = D + "/s"
rc, o, e = run("init", S, *CODE, "--stripe-unit", "4096", "--write-path", "delayed"); assert rc == 0, e
model = {}; toks = {}
for n in "abc":
    data = os.urandom(rng.randrange(100000, 400000)); rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data)
for n in "abc":
    rc, o, e = run("delayed", "start", S, n); assert rc == 0, e; toks[n] = o.decode().strip()
def wr(n, off, data):
    rc, o, e = run("write", S, n, "--offset", str(off), inp=data)
    if rc == 0:
        m = model[n]
        if len(m) < off: m.extend(bytes(off - len(m)))
        m[off:off + len(data)] = data
    return rc, e
for i in range(12):
    n = rng.choice("abc"); wr(n, rng.randrange(0, 400000), os.urandom(rng.randrange(1, 60000)))
lost = {n: [] for n in "abc"}
def parse_lost(text):
    for mm in re.finditer(r"'([abc])' bytes (\d+)\.\.(\d+)", text):
        lost[mm.group(1)].append((int(mm.group(2)), int(mm.group(3))))
for j, f in enumerate(FAILS):
    rc, o, e = run("fail", S, "--oss", str(f)); parse_lost(o.decode() + e)
    if j == 0:
        for i in range(4):  # window writes with one OSS failed (refused where they touch it)
            n = rng.choice("abc"); wr(n, rng.randrange(0, 400000), os.urandom(rng.randrange(1, 20000)))
kills = 0
for n in "abc":
    p = subprocess.Popen([B, "store", "delayed", "end", S, toks[n]], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(rng.uniform(0.005, float(os.environ.get("KMAX", "0.03")))); p.kill(); out, err = p.communicate(); parse_lost(err.decode(errors="replace"))
    kills += p.returncode == -9
    rc, o, e = run("delayed", "end", S, toks[n]); parse_lost(e)
rc, o, e = run("status", S); parse_lost(o.decode())
def check(tag):
    bad = 0
    for n, m in model.items():
        rc, o, e = run("get", S, n)
        if rc == 0:
            if o != bytes(m): print(f"{tag}: WRONG BYTES {n} (get)"); bad += 1
            continue
        for off in range(0, len(m), 4096):
            ln = min(4096, len(m) - off)
            rc, o, e = run("read", S, n, "--offset", str(off), "--length", str(ln))
            if rc == 0:
                if o != bytes(m[off:off + ln]):
                    d = [i for i in range(ln) if o[i] != m[off + i]]
                    print(f"{tag}: WRONG BYTES {n}@{off}: {len(d)} differ, first {off + d[0]}"); bad += 1
            else:
                parse_lost(e)
                if not any(a < off + ln and off < b for a, b in lost[n]):
                    print(f"{tag}: {n}@{off} refused, not named LOST: {e.strip()[:200]}"); bad += 1
    return bad
bad = check("after END")
for f in FAILS:
    rc, o, e = run("rebuild", S, "--oss", str(f))
    if rc: print("rebuild", f, rc, e.strip()[:200])
bad += check("rebuilt")
rc, o, e = run("scrub", S); last = o.decode().strip().splitlines()[-1] if o else ""
print(f"DONE seed {seed} kills={kills} bad={bad} scrub rc {rc} {last[:120]}")
shutil.rmtree(D, ignore_errors=True)
