#!/usr/bin/env python3
"""Review tool (s11d, not CI): a small overwrite of a WCL cache stripe's live bytes (100 B, one
column) in a block with one flipped bit (at ROT), killed -9 (scripts/killshim.c) at every durable
call K until it finishes; after each kill `get` must exit 0 with old-or-new bytes, or refuse.
Checks the S9-2 heal (a rotten edge block rebuilt, confirmed on its live bytes, written back
before the write) against a crash right after its write-back.
Usage: overwrite-rot-kill.py   Env: EXARAID, CODE (raid5), NOSS (4), ROT (50), OFF (40), LEN (20),
K0 (first K, 1). Shim at /tmp/s11d-killshim.so (gcc -O2 -shared -fPIC -o ... scripts/killshim.c -ldl)."""
import os, sys, subprocess, shutil, glob
E = os.environ.get("EXARAID", "/tmp/s11d-exaraid-fix"); SH = os.environ.get("SHIM", "/tmp/s11d-killshim.so")
R = "/dev/shm/s11d-owr"; CODE = os.environ.get("CODE", "raid5").split(); NOSS = os.environ.get("NOSS", "4")
ROT = int(os.environ.get("ROT", "50")); OFF = int(os.environ.get("OFF", "40")); LEN = int(os.environ.get("LEN", "20"))
def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=120)
SLOT = 4096 + 4
for k in range(int(os.environ.get("K0", "1")), 80):
    shutil.rmtree(R, ignore_errors=True); os.makedirs(R); d = R + "/s"
    run(["init", d, "--oss", NOSS, "--code"] + CODE + ["--stripe-unit", "4096", "--write-path", "wcl"])
    old = bytes((i * 7 + 3) % 251 for i in range(100))
    assert run(["write", d, "a", "--offset", "0"], old).returncode == 0 or run(["put", d, "a"], old).returncode == 0
    # find the slot with the live bytes on some OSS and flip byte ROT (data column only: first match)
    hit = None
    for c in sorted(glob.glob(d + "/oss-*/objects/*.cache")):
        b = bytearray(open(c, "rb").read())
        for s in range(len(b) // SLOT):
            if b[s * SLOT: s * SLOT + 100] == old:
                hit = (c, s); break
        if hit: break
    c, s = hit
    b = bytearray(open(c, "rb").read()); b[s * SLOT + ROT] ^= 0x10; open(c, "wb").write(b)
    new = bytes(0xEE for _ in range(LEN))
    p = run(["write", d, "a", "--offset", str(OFF)], new, {"LD_PRELOAD": SH, "KILLN": str(k)})
    g = run(["get", d, "a"])
    if g.returncode != 0:
        print("K=%d write rc %d get rc %d %s" % (k, p.returncode, g.returncode, g.stderr.decode()[-200:].replace("\n", " "))); 
        if p.returncode == 0: break
        continue
    got = g.stdout
    bad = [i for i in range(max(len(got), len(old))) if not (i < len(got) and ((i < len(old) and got[i] == old[i]) or (OFF <= i < OFF + LEN and got[i] == 0xEE)))]
    print("K=%d write rc %d get rc 0 %s" % (k, p.returncode, "exact" if not bad else "WRONG %d bytes first %d (%s)" % (len(bad), bad[0], list(got[bad[0]:bad[0]+4]))), flush=True)
    if p.returncode == 0: break
