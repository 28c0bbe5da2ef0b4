#!/usr/bin/env python3
"""s17r: one OSS on a tiny tmpfs (root: mount) while the code's whole tolerance of OTHER OSSs is
failed on record; random writes until that OSS is full; after every refused write the file must
read as before (a refusal says nothing was written), every acked byte exact; then room, rebuilds, scrub.
usage: EXARAID=... s17r-full-degraded.py DIR WRITEPATH "CODEARGS --ncols N" SIZE_K NWRITES FAILS(comma) [seed]"""
import os, random, subprocess, sys, shutil
B = os.environ["EXARAID"]; D = sys.argv[1]; WP = sys.argv[2]; CODE = sys.argv[3].split()
SIZE = sys.argv[4]; N = int(sys.argv[5]); FAILS = [int(x) for x in sys.argv[6].split(",") if x]
seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
rng = random.Random(seed)
def run(*a, inp=None):
    p = subprocess.run([B, "store", *a], input=inp, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")
subprocess.run(["umount", D + "/mnt"], capture_output=True)
shutil.rmtree(D, ignore_errors=True); os.makedirs(D + "/mnt")
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=" + SIZE, "tmpfs", D + "/mnt"], check=True)
ncols = int(CODE[CODE.index("--ncols") + 1]); CODE = [c for i, c in enumerate(CODE) if c != "--ncols" and (i == 0 or CODE[i - 1] != "--ncols")]
dirs = [D + "/mnt/o0"] + [f"{D}/o{i}" for i in range(1, ncols)]
rc, o, e = run("init", D + "/s", "--oss-dirs", ",".join(dirs), *CODE, "--stripe-unit", "4096", "--write-path", WP)
assert rc == 0, e
S = D + "/s"; model = {}
for n in ("a", "b", "c"):
    data = os.urandom(rng.randrange(1, 60000)); rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data)
for f in FAILS:
    rc, o, e = run("fail", S, "--oss", str(f)); assert rc == 0, e
def check(tag, names):
    bad = 0
    for n in names:
        m = model[n]; rc, o, e = run("get", S, n)
        if rc != 0: print(f"{tag}: get {n} rc {rc}: {e.strip()[:300]}"); bad += 1
        elif o != bytes(m):
            diff = [i for i in range(min(len(o), len(m))) if o[i] != m[i]]
            print(f"{tag}: WRONG {n} len {len(o)} vs {len(m)}, {len(diff)} bytes differ, first {diff[:3]}"); bad += 1
    return bad
acked = refused = 0; errs = {}; bad = 0
for i in range(N):
    n = rng.choice("abc"); off = rng.randrange(0, 200000); ln = rng.randrange(1, 9000)
    data = os.urandom(ln)
    rc, o, e = run("write", S, n, "--offset", str(off), inp=data)
    if rc == 0:
        acked += 1; m = model[n]
        if len(m) < off: m.extend(bytes(off - len(m)))
        m[off:off + ln] = data
    else:
        refused += 1; k = e.strip()[:200]; errs[k] = errs.get(k, 0) + 1
        b = check(f"step {i} after refused write {n}@{off}+{ln}", [n]); bad += b
        if b: print("   refusal was:", e.strip()[:400])
    if i % 10 == 0: bad += check(f"step {i}", "abc")
print(f"acked={acked} refused={refused} bad={bad}")
for k, v in list(errs.items())[:5]: print(f"  {v}x {k}")
rc, o, e = run("status", S); print("status rc", rc, "\n".join(o.decode().splitlines()[1:12]), e[:300])
subprocess.run(["mount", "-o", "remount,size=64m", D + "/mnt"], check=True)
b2 = check("room", "abc")
for f in FAILS:
    rc, o, e = run("rebuild", S, "--oss", str(f)); print("rebuild", f, rc, e.strip()[:200])
b3 = check("rebuilt", "abc")
rc, o, e = run("scrub", S); print("scrub rc", rc, o.decode()[-300:], e[:300])
print(f"DONE bad={bad} bad_room={b2} bad_rebuilt={b3}")
subprocess.run(["umount", D + "/mnt"], capture_output=True); shutil.rmtree(D, ignore_errors=True)
