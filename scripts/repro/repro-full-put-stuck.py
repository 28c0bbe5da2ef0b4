#!/usr/bin/env python3
"""Review s6r, R6-1: a `put` refused on a full disk (the settle of the replaced file's cached bytes
finds no room) leaves its staging file; every later command (ls, status, get, rm, fail) then fails
at open with the same settle error: the whole store is unreadable.
WCL raid6 4+2 over 7 OSSs, 4 KiB unit, --oss-capacity 60000 (the same with 72 KiB tmpfs mounts
and no --oss-capacity), OSS 3 failed.
Usage: EXARAID=.../exaraid python3 scripts/repro/repro-full-put-stuck.py [DIR]   exit 1 = reproduced."""
import os, random, subprocess, sys, shutil
E = os.environ.get("EXARAID", "target/release/exaraid")
D = sys.argv[1] if len(sys.argv) > 1 else "/tmp/s6r-repro-full-put"
rng = random.Random(1)
def run(*a, n=0):
    p = subprocess.run([E, "store"] + list(a), input=rng.randbytes(n), capture_output=True)
    print("$ exaraid store %s%s -> rc %d %s" % (" ".join(a), " < %d bytes" % n if n else "", p.returncode,
          p.stderr.decode(errors="replace").strip()[:160]))
    return p
shutil.rmtree(D, ignore_errors=True)
run("init", D, "--oss", "7", "--code", "raid6", "--k", "4", "--stripe-unit", "4096", "--write-path", "wcl", "--oss-capacity", "60000")
run("put", D, "f0", n=5562)
run("fail", D, "--oss", "3")
run("write", D, "f1", "--offset", "1835", n=901)
run("write", D, "f3", "--offset", "3850", n=7610)
run("put", D, "f0", n=26476)
run("rm", D, "f1")
run("put", D, "f4", n=25813)
run("put", D, "f4", n=17032)   # refused: full (the old f4's cached bytes need a settle)
run("put", D, "f3", n=45185)   # refused the same way
bad = [c for c in (["ls", D], ["status", D], ["get", D, "f0"], ["rm", D, "f0"]) if run(*c).returncode != 0]
print("REPRODUCED: %d of 4 commands fail at open" % len(bad) if bad else "not reproduced")
shutil.rmtree(D, ignore_errors=True)
sys.exit(1 if bad else 0)
