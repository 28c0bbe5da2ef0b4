#!/usr/bin/env python3
# Review s12r tool (not CI). Build the shim: gcc -O2 -shared -fPIC -o /tmp/repro-r12-killshim.so scripts/killshim.c -ldl
"""R12 probe: kill -9 a command at EVERY durable call (killshim), then the next commands must
open (no "older than its OSS directories" / "another copy" refusal after a plain crash), read
right (acked bytes; the cut write's range old or new per byte), scrub clean. Then the same with
a second kill during the recovering command (at call J), to hit recovery's epoch bumps.
Usage: epochkill.py  Env: EXARAID SHIM WPATH CODE CMD(write|put|flush|rm) J"""
import os, sys, subprocess, shutil, random
E = os.environ.get("EXARAID", "exaraid"); SH = os.environ.get("SHIM", "/tmp/repro-r12-killshim.so")
R = os.environ.get("REPRO_DIR", "/tmp/repro-r12-ek"); WP = os.environ.get("WPATH", "wcl"); CODE = os.environ.get("CODE", "raid5")
J = int(os.environ.get("J", "0")); CMD = os.environ.get("CMD", "write")
def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=300)
rng = random.Random(11); old = rng.randbytes(40000); w = rng.randbytes(7000); O = 3000
d = R + "/s"; stats = {}
def setup():
    shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
    assert run(["init", d, "--oss", "5", "--code", CODE, "--stripe-unit", "4096", "--write-path", WP]).returncode == 0
    assert run(["put", d, "f"], old).returncode == 0
    assert run(["put", d, "g"], old[:5000]).returncode == 0
    if CMD in ("flush", "rm"): assert run(["write", d, "g", "--offset", "100"], w[:2000]).returncode == 0
setup(); n = 0
p = run(["write", d, "f", "--offset", str(O)], w, env={"LD_PRELOAD": SH, "KILLCOUNT_FILE": R + "/../ek-count"}) if CMD == "write" else None
total = 120
for k in range(1, total + 1):
    setup()
    args = {"write": ["write", d, "f", "--offset", str(O)], "flush": ["flush", d], "rm": ["rm", d, "g"], "put": ["put", d, "f"]}[CMD]
    p = run(args, w, env={"LD_PRELOAD": SH, "KILLN": str(k)})
    if p.returncode != -9: break
    n += 1
    if J:
        q = run(["ls", d], env={"LD_PRELOAD": SH, "KILLN": str(J)})
    g = run(["get", d, "f"]); s = run(["scrub", d])
    msg = (g.stderr + s.stderr).decode(errors="replace")
    ok = g.returncode == 0 and len(g.stdout) in (len(old), max(len(old), O + len(w)))
    if ok:
        for i, c in enumerate(g.stdout):
            if c != old[i] and not (O <= i < O + len(w) and c == w[i - O]) and not (CMD == "put" and g.stdout == w): ok = False; break
    if CMD == "put" and g.returncode == 0 and g.stdout in (old, w): ok = True
    bad = (not ok) or s.returncode != 0 or "older than" in msg or "another copy" in msg
    if bad: print("k=%d get rc=%d scrub rc=%d %s" % (k, g.returncode, s.returncode, msg[:400].replace("\n", " | ")), flush=True)
    stats[bad] = stats.get(bad, 0) + 1
print("DONE %s %s %s J=%d: %d kill points, %s" % (CMD, WP, CODE, J, n, stats))
