#!/usr/bin/env python3
"""s16r: one OSS on a tiny tmpfs (root: mount), many small writes until that OSS is full,
a model of acknowledged bytes; then reads, status, remount bigger, reads, scrub.
usage: EXARAID=... s16r-full-oss.py DIR WRITEPATH CODEARGS SIZE_K NWRITES [seed]"""
import os, random, subprocess, sys, shutil
B = os.environ["EXARAID"]; D = sys.argv[1]; WP = sys.argv[2]; CODE = sys.argv[3].split()
SIZE = sys.argv[4]; N = int(sys.argv[5]); seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
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
S = D + "/s"
model = {}
for n in ("a", "b", "c"):
    data = os.urandom(rng.randrange(1, 60000)); rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data)
acked = refused = 0; errs = {}
for i in range(N):
    n = rng.choice("abc"); off = rng.randrange(0, 200000); ln = rng.randrange(1, 9000)
    data = os.urandom(ln)
    rc, o, e = run("write", S, n, "--offset", str(off), inp=data)
    if rc == 0:
        acked += 1; m = model[n]
        if len(m) < off: m.extend(bytes(off - len(m)))
        m[off:off + ln] = data
    else:
        refused += 1; k = e.strip()[:160]; errs[k] = errs.get(k, 0) + 1
        # a refused write may have written a prefix (8 MiB pieces): ours are < 8 MiB, so none
print(f"acked={acked} refused={refused}")
for k, v in list(errs.items())[:4]: print(f"  {v}x {k}")
def check(tag):
    bad = 0
    for n, m in model.items():
        rc, o, e = run("get", S, n)
        if rc != 0: print(f"{tag}: get {n} rc {rc}: {e.strip()[:300]}"); bad += 1
        elif o != bytes(m):
            diff = [i for i in range(min(len(o), len(m))) if o[i] != m[i]]
            print(f"{tag}: WRONG {n} len {len(o)} vs {len(m)}, {len(diff)} bytes differ, first {diff[:3]}"); bad += 1
    return bad
b1 = check("full")
rc, o, e = run("status", S); print("status rc", rc, o.decode()[:900], e[:300])
subprocess.run(["mount", "-o", "remount,size=64m", D + "/mnt"], check=True)
b2 = check("room")
rc, o, e = run("status", S); print("status rc", rc, "\n".join(o.decode().splitlines()[1:9]), e[:300])
rc, o, e = run("scrub", S); print("scrub rc", rc, o.decode()[-300:], e[:300])
print(f"DONE bad_full={b1} bad_room={b2}")
