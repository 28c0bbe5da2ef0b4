#!/usr/bin/env python3
"""s17r: delayed windows, OSS F failed inside them; the next command's open absorbs the losses (a
settle). That command runs with the ENOSPC shim on the journal (NOSPCFILE=journal): its first N
journal writes succeed, later ones fail (the metadata disk fills at that instant). Then, disk still
full (N=0 for every later command): every 4 KiB piece read = the model's bytes or refused; then
room: END, every piece = model or inside a named LOST range, rebuild, scrub.
usage: EXARAID=... SHIM=/tmp/s17r-nospc.so s17r-absorb-nospc-sweep.py DIR NMAX [FILE=journal] [seed]"""
import os, random, subprocess, sys, shutil, re
B = os.environ["EXARAID"]; SHIM = os.environ["SHIM"]; D = sys.argv[1]; NMAX = int(sys.argv[2])
PAT = sys.argv[3] if len(sys.argv) > 3 else "journal"; seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
def run(*a, inp=None, n=None):
    env = dict(os.environ)
    if n is not None: env.update(LD_PRELOAD=SHIM, NOSPCFILE=PAT, NOSPCAFTER=str(n))
    p = subprocess.run([B, "store", *a], input=inp, capture_output=True, timeout=120, env=env)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")
total_bad = 0
for N in range(0, NMAX + 1):
    rng = random.Random(seed * 1000 + N)
    shutil.rmtree(D, ignore_errors=True); os.makedirs(D); S = D + "/s"
    rc, o, e = run("init", S, "--code", "rs", "--k", "4", "--m", "3", "--oss", "7", "--stripe-unit", "4096", "--write-path", "delayed"); assert rc == 0, e
    model = {}; toks = {}
    for n in "ab":
        data = os.urandom(rng.randrange(20000, 60000)); rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data)
    for n in "ab":
        rc, o, e = run("delayed", "start", S, n); assert rc == 0, e; toks[n] = o.decode().strip()
    for i in range(6):
        n = rng.choice("ab"); off = rng.randrange(0, 60000); d = os.urandom(rng.randrange(1, 15000))
        rc, o, e = run("write", S, n, "--offset", str(off), inp=d)
        if rc == 0:
            m = model[n]; m.extend(bytes(max(0, off - len(m)))); m[off:off + len(d)] = d
    lost = {n: [] for n in "ab"}
    def parse_lost(text):
        for mm in re.finditer(r"'([ab])' bytes (\d+)\.\.(\d+)", text):
            lost[mm.group(1)].append((int(mm.group(2)), int(mm.group(3))))
    rc, o, e = run("fail", S, "--oss", "2"); parse_lost(o.decode() + e)
    rc1, o, e1 = run("status", S, n=N); parse_lost(o.decode())
    bad = 0
    def check(tag, n_shim, strict_lost):
        b = 0
        for n, m in model.items():
            for off in range(0, len(m), 4096):
                ln = min(4096, len(m) - off)
                rc, o, e = run("read", S, n, "--offset", str(off), "--length", str(ln), n=n_shim)
                if rc == 0:
                    if o != bytes(m[off:off + ln]):
                        d = [i for i in range(ln) if o[i] != m[off + i]]
                        print(f"N={N} {tag}: WRONG BYTES {n}@{off}: {len(d)} differ"); b += 1
                else:
                    parse_lost(e)
                    if strict_lost and not any(a < off + ln and off < z for a, z in lost[n]):
                        print(f"N={N} {tag}: {n}@{off} refused, not named LOST: {e.strip()[:160]}"); b += 1
        return b
    bad += check("disk still full", 0, False)
    for n in "ab":
        rc, o, e = run("delayed", "end", S, toks[n]); parse_lost(e)
    rc, o, e = run("status", S); parse_lost(o.decode())
    bad += check("room", None, True)
    rc, o, e = run("rebuild", S, "--oss", "2")
    if rc: print(f"N={N} rebuild rc {rc}: {e.strip()[:200]}"); bad += 1
    rc, o, e = run("scrub", S); sl = o.decode().strip().splitlines()
    if rc not in (0, 2) or any("mismatch" in l and "mismatches: 0" not in l for l in sl): print(f"N={N} scrub rc {rc} {sl[-1][:160]}"); bad += 1
    print(f"N={N} status(with shim) rc {rc1} {e1.strip()[:110]!r} bad={bad}")
    total_bad += bad
print("DONE total_bad", total_bad)
shutil.rmtree(D, ignore_errors=True)
