#!/usr/bin/env python3
"""Repro (review s9s S9-1, not CI): delayed raid6, a window write cached on OSS 1, one bit flipped in its cache
block, a 2-byte write into the same block fails (right), then the next open moves the rotten block home under a
fresh checksum: get exits 0 with the flipped byte. Usage: repro-window-rot-failed-write.py BYTE OFFSET (1000 1500)
Env: EXARAID. Scratch /tmp/s9s-m."""
import os, subprocess, random, shutil, sys, glob
E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid"); D = "/tmp/s9s-m/s"
def run(a, inp=b""): return subprocess.run([E, "store"] + a, input=inp, capture_output=True)
r = random.Random(5); shutil.rmtree(D, ignore_errors=True)
assert run(["init", D, "--oss", "6", "--code", "raid6", "--stripe-unit", "16384", "--write-path", "delayed"]).returncode == 0
f = bytearray(r.randbytes(100000)); run(["put", D, "f"], bytes(f))
print("start", run(["delayed", "start", D, "f"]).stdout)
w = r.randbytes(16384); assert run(["write", D, "f", "--offset", "16384"], w).returncode == 0; f[16384:32768] = w
def get(tag):
    g = run(["get", D, "f"]); print(tag, "get rc", g.returncode, "exact" if g.stdout == bytes(f) else "WRONG %d" % sum(1 for a, b in zip(g.stdout, f) if a != b), g.stderr.decode()[:150])
caches = [c for c in sorted(glob.glob(D + "/oss-*/objects/*.cache")) if os.path.getsize(c) > 0]
print([ (c, os.path.getsize(c)) for c in caches])
c = caches[0]; data = bytearray(open(c, "rb").read()); data[int(sys.argv[1])] ^= 4; open(c, "wb").write(data)
get("after flip")
p = run(["write", D, "f", "--offset", str(16384 + int(sys.argv[2]))], b"zz"); print("small write rc", p.returncode, p.stderr.decode()[-200:])
if p.returncode == 0: f[16384 + int(sys.argv[2]):16384 + int(sys.argv[2]) + 2] = b"zz"
get("after failed write")
p = run(["write", D, "f", "--offset", "90000"], b"yy"); print("other write rc", p.returncode); f[90000:90002] = b"yy"
get("after other write")
print(run(["status", D]).stdout.decode()[-300:])
