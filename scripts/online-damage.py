#!/usr/bin/env python3
"""Review tool (engineer s9s, not CI; brief item 1, S8-5 online checks): rmw/wcl/delayed raid6, OSS 2 failed,
a write, then damage INSIDE one of its zone files (MODE zeroslot: a middle slot with its crcs zeroed; zeroelem:
element bytes zeroed; swap: two slots swapped), `online`, every get, scrub, one more OSS failed.
Usage: online-damage.py MODE [PATH] [CODE]   Env: EXARAID. Scratch /tmp/s9s-on."""
# online (S8-5 checks): damage INSIDE a failed OSS's zone file (not its first block, not its length), then online, then reads
import os, subprocess, random, shutil, sys, glob
E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid"); D = "/tmp/s9s-on/s"
MODE = sys.argv[1]; WP = sys.argv[2] if len(sys.argv) > 2 else "rmw"; CODE = (sys.argv[3] if len(sys.argv) > 3 else "raid6").split(":")
def run(a, inp=b""): return subprocess.run([E, "store"] + a, input=inp, capture_output=True)
r = random.Random(3); shutil.rmtree(D, ignore_errors=True)
U = 16384; SLOT = U + U // 4096 * 4
assert run(["init", D, "--oss", "6", "--code"] + CODE + ["--stripe-unit", str(U), "--write-path", WP]).returncode == 0
f = bytearray(r.randbytes(U * 4 * 6)); run(["put", D, "f"], bytes(f))
g = bytearray(r.randbytes(U * 3)); run(["put", D, "g"], bytes(g))
O = 2
print("fail", run(["fail", D, "--oss", str(O)]).returncode)
w = r.randbytes(5000); assert run(["write", D, "f", "--offset", "100"], w).returncode == 0; f[100:5100] = w
files = sorted(p for p in glob.glob("%s/oss-%d/objects/*" % (D, O)) if os.path.getsize(p) > 2 * SLOT)
print("zone files", [(os.path.basename(p), os.path.getsize(p)) for p in files])
p = files[0]; data = bytearray(open(p, "rb").read())
if MODE == "zeroslot":      # a middle slot: element bytes and its crcs zeroed
    data[SLOT:2 * SLOT] = bytes(SLOT)
elif MODE == "zeroelem":    # element bytes zeroed, crcs kept
    data[SLOT:SLOT + U] = bytes(U)
elif MODE == "swap":        # two slots swapped (valid crcs, wrong place)
    a, b = data[0:SLOT], data[SLOT:2 * SLOT]; data[0:SLOT] = b; data[SLOT:2 * SLOT] = a
elif MODE == "otherstore":  # the slot of the same file from an older copy: stale (taken before the write)
    pass
open(p, "wb").write(data)
o = run(["online", D, "--oss", str(O)]); print("online rc", o.returncode, (o.stdout + o.stderr).decode()[-300:].replace("\n", " | "))
for nm, exp in (("f", f), ("g", g)):
    x = run(["get", D, nm]); print(MODE, WP, "get", nm, "rc", x.returncode, "exact" if x.stdout == bytes(exp) else "WRONG %d bytes (zeros %d)" % (sum(1 for a, b in zip(x.stdout, exp) if a != b), sum(1 for a, b in zip(x.stdout, exp) if a != b and a == 0)), x.stderr.decode()[:150])
s = run(["scrub", D]); print("scrub rc", s.returncode, s.stdout.decode()[-200:].replace("\n", " | "))
for i in (0, 1, 3):
    run(["fail", D, "--oss", str(i)])
    for nm, exp in (("f", f), ("g", g)):
        x = run(["get", D, nm])
        if x.returncode == 0 and x.stdout != bytes(exp): print("  with OSS %d failed too: get %s rc 0 WRONG" % (i, nm))
    run(["online", D, "--oss", str(i)])
