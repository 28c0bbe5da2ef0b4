#!/usr/bin/env python3
"""s11a cost check (not CI): 150 small unaligned window writes, main vs fix binaries (env EXARAID_MAIN, EXARAID_FIX2)."""
import os, random, shutil, subprocess, sys, time
def run(E, a, inp=b""):
    p = subprocess.run([E, "store"] + a, input=inp, capture_output=True); assert p.returncode == 0, p.stderr; return p
for name in ["main", "fix2", "main", "fix2"]:
    E = os.environ.get("EXARAID_" + name.upper(), "/tmp/s11a-exaraid-" + name); D = "/dev/shm/s11a-cost"; shutil.rmtree(D, ignore_errors=True)
    run(E, ["init", D, "--oss", "6", "--code", "raid6", "--stripe-unit", "16384", "--write-path", "delayed", "--unprotected-max-bytes", str(1 << 30)])
    r = random.Random(1); run(E, ["put", D, "f"], r.randbytes(1 << 20)); run(E, ["delayed", "start", D, "f"])
    t = time.time()
    for i in range(150):
        run(E, ["write", D, "f", "--offset", str(r.randrange(1 << 20) - 200)], r.randbytes(150))
    dt = time.time() - t
    j = os.path.getsize(D + "/journal")
    print(name, "150 unaligned 150-byte window writes: %.2f s (%.1f ms each), journal %d bytes" % (dt, dt / 150 * 1000, j))
