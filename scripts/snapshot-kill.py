#!/usr/bin/env python3
"""Review tool (engineer s5s, not CI): brief item 1 (E4c OSS generations) at the extents
snapshot rewrite. A rmw raid6 store (6 OSSs, 4 KiB unit) gets 1-byte writes at scattered
offsets until every OSS's extents log holds EXTENTS_LOG_RECORDS_MAX (4096) records; then the
next write (which rewrites every OSS's snapshot and empties its log) is killed -9 at each of
its durable calls (torn and not). After each kill: `status` must show no OSS UNAVAILABLE /
rolled back (exit 0), `scrub` exit 0, the file exact (the killed byte old or new); then one
more write and the same checks (a second session over the rewritten snapshot).
Usage: snapshot-kill.py [records]  Env: EXARAID, SHIM, S5S_DIR (default /tmp/s5s-snapk), WPATH (rmw),
REUSE=1 (reuse S5S_DIR/pristine of an earlier run: skips the ~3 min setup), KSTEP, TEARS ("01").
Prints problems and a DONE line."""
import os, shutil, subprocess, sys
E = os.environ.get("EXARAID", "/work/target-s5r/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s5s-killshim.so")
ROOT = os.environ.get("S5S_DIR", "/tmp/s5s-snapk")
N = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
d = ROOT + "/s"; pristine = ROOT + "/pristine"  # restored to d (a copy elsewhere would share the OSS dirs)


def run(a, inp=b"", env=None):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)


def logrecs(dd):
    return [os.path.getsize("%s/oss-%d/exaraid-extents.log" % (dd, o)) // 24 for o in range(6)]


if os.environ.get("REUSE") and os.path.isdir(pristine):
    shutil.rmtree(d, ignore_errors=True); shutil.copytree(pristine, d)
    model = bytearray(run(["get", d, "f"]).stdout)
    i = (len(model) - 1) // (16384 * 3) + 1
    off = i * 16384 * 3
    env = dict(os.environ, LD_PRELOAD=SHIM, KILLN="0", KILLCOUNT_FILE=ROOT + "/count")
    before = logrecs(d)
    assert run(["write", d, "f", "--offset", str(off)], b"y", env).returncode == 0
    total = int(open(ROOT + "/count").read().split()[0])
    print("reused: the crossing write: %d durable calls, log records %s -> %s" % (total, before, logrecs(d)), flush=True)
else:
    shutil.rmtree(ROOT, ignore_errors=True)
    assert run(["init", d, "--oss", "6", "--code", "raid6", "--stripe-unit", "4096", "--write-path", os.environ.get("WPATH", "rmw")]).returncode == 0
    model = bytearray()
    i = 0
    while max(logrecs(d)) < N - 2:  # the snapshot is rewritten past N records: stop just short
        off = i * 16384 * 3
        assert run(["write", d, "f", "--offset", str(off)], b"x").returncode == 0
        model.extend(bytes(off + 1 - len(model))); model[off] = ord("x"); i += 1
    print("setup: %d writes, log records %s" % (i, logrecs(d)), flush=True)
    # Find the write that rewrites a snapshot (some OSS's log drops): the pristine state is just
    # before it.
    while True:
        off = i * 16384 * 3
        shutil.rmtree(pristine, ignore_errors=True); shutil.copytree(d, pristine)
        before = logrecs(d)
        env = dict(os.environ, LD_PRELOAD=SHIM, KILLN="0", KILLCOUNT_FILE=ROOT + "/count")
        assert run(["write", d, "f", "--offset", str(off)], b"y", env).returncode == 0
        after = logrecs(d)
        if any(x < y for x, y in zip(after, before)):
            break
        model.extend(bytes(off + 1 - len(model))); model[off] = ord("y"); i += 1
    total = int(open(ROOT + "/count").read().split()[0])
    print("the crossing write: %d durable calls, log records %s -> %s" % (total, before, after), flush=True)
problems = 0
for k in range(1, total + 1, int(os.environ.get("KSTEP", "1"))):
    for tear in os.environ.get("TEARS", "01"):
        shutil.rmtree(d); shutil.copytree(pristine, d)
        env = dict(os.environ, LD_PRELOAD=SHIM, KILLN=str(k), KILLTEAR=tear)
        p = run(["write", d, "f", "--offset", str(off)], b"y", env)
        where = p.stderr.decode(errors="replace").strip()[:120]
        msg = []
        for step in ("after the kill", "after one more write"):
            st = run(["status", d])
            out = (st.stdout + st.stderr).decode(errors="replace")
            if st.returncode != 0 or "UNAVAILABLE" in out or "generation" in out:
                msg.append("%s: status rc %d %s" % (step, st.returncode, out[-300:]))
            s = run(["scrub", d])
            if s.returncode != 0:
                msg.append("%s: scrub rc %d %s" % (step, s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
            g = run(["get", d, "f"])
            a = g.stdout
            # a killed write: each byte old or new, the length old or new
            okk = g.returncode == 0 and (a == bytes(model) or (len(a) == off + 1 and a[:off] == bytes(model) + bytes(off - len(model)) and a[off:] in (b"y", b"\0")))
            if step != "after the kill":
                okk = g.returncode == 0 and a[:len(model)] == bytes(model)[:len(model)] and len(a) >= len(model)
            if not okk:
                msg.append("%s: get rc %d len %d" % (step, g.returncode, len(a)))
            if step == "after the kill":
                w = run(["write", d, "f", "--offset", "1"], b"z")
                model2 = model  # byte 1 set below only for the check of the next step
                if w.returncode != 0:
                    msg.append("write after the kill rc %d: %s" % (w.returncode, w.stderr.decode(errors="replace")[-300:]))
                model = bytearray(model); model[1] = ord("z")
        model[1] = 0
        if msg:
            problems += 1
            print("K=%d tear=%s (%s): %s" % (k, tear, where, " | ".join(msg)), flush=True)
print("DONE snapshot-kill: %d durable calls, every %s-th killed, tears %s, %d with problems" % (total, os.environ.get("KSTEP", "1"), os.environ.get("TEARS", "01"), problems))
