#!/usr/bin/env python3
"""Review tool (engineer s9s, not CI; brief item 1): delayed raid6, window bytes recorded lost by `fail`, then the
failed OSS's cache zone file damaged (MODE none|zeroslot|zeroelem|zeroblockcrc|truncate|delete), `online` (reads
them back where they verify), get: never zeros, LOST on record or refused.
Usage: online-window-readback-damage.py MODE   Env: EXARAID. Scratch /tmp/s9s-on."""
# online read-back of window bytes recorded lost at `fail`, from a damaged cache zone file
import os, subprocess, random, shutil, sys, glob
E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid"); D = "/tmp/s9s-on/s2"
MODE = sys.argv[1]
def run(a, inp=b""): return subprocess.run([E, "store"] + a, input=inp, capture_output=True)
r = random.Random(4); shutil.rmtree(D, ignore_errors=True)
U = 16384; SLOT = U + U // 4096 * 4
run(["init", D, "--oss", "6", "--code", "raid6", "--stripe-unit", str(U), "--write-path", "delayed"])
f = bytearray(r.randbytes(U * 4 * 3)); run(["put", D, "f"], bytes(f))
run(["delayed", "start", D, "f"])
w = r.randbytes(U * 4); assert run(["write", D, "f", "--offset", "0"], w).returncode == 0; f[0:U * 4] = w
caches = {o: "%s/oss-%d/objects/18446744073709551615.cache" % (D, o) for o in range(6)}
O = [o for o in range(6) if os.path.exists(caches[o]) and os.path.getsize(caches[o]) > 0][0]
fo = run(["fail", D, "--oss", str(O)]); print("fail", O, fo.returncode, fo.stdout.decode()[-200:].replace("\n", " | "))
p = caches[O]; data = bytearray(open(p, "rb").read()); print("cache size", len(data))
if MODE == "zeroslot": data[0:SLOT] = bytes(SLOT)
elif MODE == "zeroelem": data[0:U] = bytes(U)
elif MODE == "zeroblockcrc": data[4096:8192] = bytes(4096); data[U:U + SLOT - U] = bytes(SLOT - U)
elif MODE == "truncate": data = data[:100]
elif MODE == "delete": data = None
if data is None: os.remove(p)
else: open(p, "wb").write(data)
o = run(["online", D, "--oss", str(O)]); print("online rc", o.returncode, (o.stdout + o.stderr).decode()[-300:].replace("\n", " | "))
x = run(["get", D, "f"]); bad = [i for i, (a, b) in enumerate(zip(x.stdout, f)) if a != b]
print(MODE, "get rc", x.returncode, "exact" if x.stdout == bytes(f) else "WRONG %d bytes (zeros %d) first %s" % (len(bad), sum(1 for i in bad if x.stdout[i] == 0), bad[:1]), x.stderr.decode()[:200])
print("status", run(["status", D]).stdout.decode()[-250:].replace("\n", " | "))
