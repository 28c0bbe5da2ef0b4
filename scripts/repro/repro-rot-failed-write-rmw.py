#!/usr/bin/env python3
"""Review tool (s9s, not CI): raid5 rmw (WP env), bit rot in two columns of stripe 0, 2-byte writes into each element:
the refused write leaves its input record; the next open says \"recovery after a crash\" (S9-1/S9-3 root). Env EXARAID, WP."""
import os, subprocess, random, shutil, glob
E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid"); D = "/tmp/s9s-m/r5/s"
def run(a, inp=b""): return subprocess.run([E, "store"] + a, input=inp, capture_output=True)
shutil.rmtree("/tmp/s9s-m/r5", ignore_errors=True); os.makedirs("/tmp/s9s-m/r5")
rng = random.Random(2); U = 4096
run(["init", D, "--oss", "5", "--code", "raid5", "--stripe-unit", str(U), "--write-path", os.environ.get("WP", "rmw")])
f = bytearray(rng.randbytes(U * 4 * 3)); run(["put", D, "f"], bytes(f))
# rot: byte 100 of element slot 0 on two OSSs (two columns of stripe 0)
for o in (0, 1, 2, 3, 4):
    for p in glob.glob(D + "/oss-%d/objects/0.data" % o):
        pass
rot = [p for p in sorted(glob.glob(D + "/oss-*/objects/0.*"))][:2]
for p in rot:
    b = bytearray(open(p, "rb").read()); b[100] ^= 1; open(p, "wb").write(b)
print("rotted", rot)
g = run(["get", D, "f"]); print("get before write rc", g.returncode, g.stderr.decode()[:150])
for off in range(50, 4 * U, U):
    x = run(["write", D, "f", "--offset", str(off)], b"QQ")
    print("write @%d rc %d %s" % (off, x.returncode, x.stderr.decode()[:160].replace("\n", " ")))
    if x.returncode == 0: f[off:off + 2] = b"QQ"
    g = run(["get", D, "f"]); bad = [i for i, (a, c) in enumerate(zip(g.stdout, f)) if a != c]
    print("   get rc", g.returncode, "exact" if g.stdout == bytes(f) else "WRONG %d %s len %d" % (len(bad), bad[:3], len(g.stdout)) if g.returncode == 0 else g.stderr.decode()[:120])
