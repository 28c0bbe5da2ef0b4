#!/usr/bin/env python3
"""s17r: delayed windows on 3 files, window writes, then OSS 0's disk (a tmpfs) filled to the
last byte by another program; END of each window (expected: refused or done, never a wrong byte),
optionally OSS FAIL failed (not the full one) before END; reads after every step; then room, END
again, reads, scrub. Model: acked window writes; bytes END names LOST may be refused, nothing else.
usage: [FULL=meta] EXARAID=... s17r-end-full.py DIR SEED [FAIL=-1] [CODE="--code rs --k 4 --m 3 --ncols 7"]"""
import os, random, subprocess, sys, shutil, re
B = os.environ["EXARAID"]; D = sys.argv[1]; seed = int(sys.argv[2]); FAIL = int(sys.argv[3]) if len(sys.argv) > 3 else -1
CODE = (sys.argv[4] if len(sys.argv) > 4 else "--code rs --k 4 --m 3 --ncols 7").split()
rng = random.Random(seed)
def run(*a, inp=None):
    p = subprocess.run([B, "store", *a], input=inp, capture_output=True, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")
subprocess.run(["umount", D + "/mnt"], capture_output=True)
shutil.rmtree(D, ignore_errors=True); os.makedirs(D + "/mnt")
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", D + "/mnt"], check=True)
ncols = int(CODE[CODE.index("--ncols") + 1]); CODE = [c for i, c in enumerate(CODE) if c != "--ncols" and (i == 0 or CODE[i - 1] != "--ncols")]
META = os.environ.get("FULL") == "meta"  # FULL=meta: the store dir (superblock, journal, state) is on the tmpfs instead
dirs = ([f"{D}/o0"] if META else [D + "/mnt/o0"]) + [f"{D}/o{i}" for i in range(1, ncols)]
rc, o, e = run("init", (D + "/mnt/s") if META else (D + "/s"), "--oss-dirs", ",".join(dirs), *CODE, "--stripe-unit", "4096", "--write-path", "delayed")
assert rc == 0, e
S = (D + "/mnt/s") if META else (D + "/s"); model = {}; toks = {}
for n in ("a", "b", "c"):
    data = os.urandom(rng.randrange(1, 80000)); rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data)
for n in ("a", "b", "c"):
    rc, o, e = run("delayed", "start", S, n); assert rc == 0, e; toks[n] = o.decode().strip()
for i in range(24):
    n = rng.choice("abc"); off = rng.randrange(0, 100000); ln = rng.randrange(1, 12000); data = os.urandom(ln)
    rc, o, e = run("write", S, n, "--offset", str(off), inp=data)
    if rc == 0:
        m = model[n]
        if len(m) < off: m.extend(bytes(off - len(m)))
        m[off:off + ln] = data
    else: print("write refused:", e.strip()[:200])
# fill OSS 0's disk
fd = os.open(D + "/mnt/filler", os.O_WRONLY | os.O_CREAT, 0o644)
for chunk in (65536, 4096, 1):
    while True:
        try:
            if os.write(fd, b"\0" * chunk) < chunk: break
        except OSError: break
os.close(fd)
lost = {n: [] for n in "abc"}
def parse_lost(text):
    for mm in re.finditer(r"'([abc])' bytes (\d+)\.\.(\d+)", text):
        lost[mm.group(1)].append((int(mm.group(2)), int(mm.group(3))))
def check(tag):
    bad = 0
    for n, m in model.items():
        rc, o, e = run("get", S, n)
        if rc == 0:
            if o != bytes(m):
                diff = [i for i in range(min(len(o), len(m))) if o[i] != m[i]]
                print(f"{tag}: WRONG BYTES {n}: len {len(o)} vs {len(m)}, {len(diff)} differ, first {diff[:3]}"); bad += 1
            continue
        # refused: check every 4 KiB piece by read; refused pieces must be inside named LOST
        for off in range(0, len(m), 4096):
            ln = min(4096, len(m) - off)
            rc2, o2, e2 = run("read", S, n, "--offset", str(off), "--length", str(ln))
            if rc2 == 0:
                if o2 != bytes(m[off:off + ln]): print(f"{tag}: WRONG BYTES {n}@{off}"); bad += 1
            else:
                parse_lost(e2)
                if not any(a < off + ln and off < b for a, b in lost[n]):
                    print(f"{tag}: read {n}@{off}+{ln} refused, not named LOST: {e2.strip()[:300]}"); bad += 1
    return bad
bad = check("full, windows open")
if FAIL >= 0:
    rc, o, e = run("fail", S, "--oss", str(FAIL)); print("fail", FAIL, rc, e.strip()[:150])
for n in "abc":
    rc, o, e = run("delayed", "end", S, toks[n]); print(f"END {n} (full) rc {rc}: {(o.decode() + e).strip()[:300]}"); parse_lost(e)
    bad += check(f"after END {n} full")
rc, o, e = run("status", S); print("status rc", rc, e.strip()[:200])
os.remove(D + "/mnt/filler")
for n in "abc":
    rc, o, e = run("delayed", "end", S, toks[n]); print(f"END {n} (room) rc {rc}: {(o.decode() + e).strip()[:200]}"); parse_lost(e)
bad += check("room")
rc, o, e = run("status", S); print("status rc", rc, "\n".join(o.decode().splitlines()[-6:]), e.strip()[:200])
if FAIL >= 0:
    rc, o, e = run("rebuild", S, "--oss", str(FAIL)); print("rebuild", rc, e.strip()[:200])
rc, o, e = run("scrub", S); print("scrub rc", rc, o.decode()[-400:], e[:300])
bad += check("end")
print(f"DONE bad={bad} lost={ {k: v[:4] for k, v in lost.items()} }")
subprocess.run(["umount", D + "/mnt"], capture_output=True); shutil.rmtree(D, ignore_errors=True)
