#!/usr/bin/env python3
"""Repro (review s8s, not CI): the read-only open's advice (`fail` the disk that keeps failing its
writes; "on a single-parity code its bytes ... may be recorded lost") on raid6: acknowledged
window bytes are recorded LOST. delayed raid6, 6 OSSs, 4 KiB unit: put f0..f2 (50,000 bytes),
`delayed start f1`, writes f1 5000+9000, f1 30000+12000, f2 100+7000; `flush` killed -9 at its
durable call K (killshim; default 20); then every command under the eioshim (FAILN=4, EIO,
sticky: the 4th durable call fails and that OSS's later calls too): `status` -> warning "open for
reads only ... (OSS .../oss-0 ...)"; `fail --oss 0` (the OSS named) rc 0 prints
`LOST: 'f1' bytes 40960..42000 (only copy was on failed OSS 0, window ...)`; without the shim
`get f1` rc 1 naming those bytes lost, also after `rebuild --oss 0`.
Usage: repro-reads-only-fail-window.py [K]   Env: EXARAID, SHIM, EIOSHIM, REPRO_DIR."""
import os, sys, subprocess, shutil, random, re
E = os.environ.get("EXARAID", "/work/share8/exaraid-s8int")
SH = os.environ.get("SHIM", "/tmp/s8s-killshim.so"); EIO = os.environ.get("EIOSHIM", "/tmp/s8s-eioshim.so")
d = os.path.join(os.environ.get("REPRO_DIR", "/tmp/s8s-rofw"), "s"); k = sys.argv[1] if len(sys.argv) > 1 else "20"
def run(a, inp=b"", env=None): return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)
def txt(p): return (p.stdout + p.stderr).decode(errors="replace").strip().replace("\n", " | ")
shutil.rmtree(os.path.dirname(d), ignore_errors=True); os.makedirs(os.path.dirname(d))
rng = random.Random(5)
run(["init", d, "--oss", "6", "--code", "raid6", "--stripe-unit", "4096", "--write-path", "delayed"])
for f in ("f0", "f1", "f2"): run(["put", d, f], rng.randbytes(50000))
run(["delayed", "start", d, "f1"])
for f, off, ln in (("f1", 5000, 9000), ("f1", 30000, 12000), ("f2", 100, 7000)):
    print("write %s %d+%d rc=%d" % (f, off, ln, run(["write", d, f, "--offset", str(off)], rng.randbytes(ln)).returncode))
print("flush killed:", run(["flush", d], env=dict(os.environ, LD_PRELOAD=SH, KILLN=k)).returncode)
env = dict(os.environ, LD_PRELOAD=EIO, FAILN="4", FAILERRNO="EIO", FAILSTICKY="1")
s = run(["status", d], env=env); m = re.search(rb"oss-(\d)/objects", s.stderr); o = m.group(1).decode() if m else "0"
print("status:", txt(s)[-420:])
print("fail --oss %s:" % o, txt(run(["fail", d, "--oss", o], env=env))[:300])
print("get f1 (no shim):", txt(run(["get", d, "f1"]))[-260:])
print("rebuild:", txt(run(["rebuild", d, "--oss", o])))
g = run(["get", d, "f1"]); print("get f1 after rebuild rc=%d" % g.returncode)
