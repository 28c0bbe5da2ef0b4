#!/usr/bin/env python3
"""Repro (review s8s, not CI): bytes an interrupted `online` journaled (Rec::Restore, kept in
State::restoring) survive a `rebuild` of the same OSS, and a LATER `online` of it writes them
back over a later loss: the file reads stale bytes with exit 0.
delayed raid6, 6 OSSs, 4 KiB unit: put f1, f2; window T1 on f1, write A at OFF; `fail X` (X: the
OSS the loss is recorded on); a write into f2 (so online has a stripe to rewrite); `online X`
killed at kill point online-stripe:1 (after its Restore record); `rebuild X` instead of a rerun;
END T1 (names the loss); write B over the range (clears the loss); window T2, write C there;
`fail X` again (the range lost again, if its cache copy sat on X); `online X`; read the range.
Expected: C (or a refusal naming it lost). Bug: A with exit 0.
KP=online-back: the online killed after its `Online` record instead (X back, its bytes not
yet written back), no rebuild: the same stale bytes come back at the next online.
Usage: repro-online-stale-restore.py [OFF]   Env: EXARAID, REPRO_DIR, KP (online-stripe|online-back)."""
import os, sys, subprocess, shutil, json, random
E = os.environ.get("EXARAID", "/work/share8/exaraid-s8int")
D = os.path.join(os.environ.get("REPRO_DIR", "/tmp/s8s-osr"), "s")
OFF = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
LEN = 4096
def run(a, inp=b"", env=None): return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)
def lost(): return [(x["file"], x["offset_bytes"], x["len_bytes"], x.get("oss")) for x in json.loads(run(["status", D, "--json"]).stdout).get("lost_ranges", [])]
def say(msg, p): print("%-34s rc=%d %s" % (msg, p.returncode, (p.stdout + p.stderr).decode(errors="replace").strip().replace("\n", " | ")[:200]))
r = random.Random(1)
A, B, C = b"A" * LEN, b"B" * LEN, b"C" * LEN
for X in range(6):
    shutil.rmtree(os.path.dirname(D), ignore_errors=True); os.makedirs(os.path.dirname(D))
    run(["init", D, "--oss", "6", "--code", "raid6", "--stripe-unit", "4096", "--write-path", "delayed"])
    run(["put", D, "f1"], r.randbytes(65536)); run(["put", D, "f2"], r.randbytes(65536))
    t1 = run(["delayed", "start", D, "f1"]).stdout.decode().strip()
    run(["write", D, "f1", "--offset", str(OFF)], A)
    run(["fail", D, "--oss", str(X)])
    if lost():
        break
print("X =", X, "lost after fail:", lost())
say("write f2 while failed", run(["write", D, "f2", "--offset", "0"], b"z" * 5000))
KP = os.environ.get("KP", "online-stripe")
say("online killed (%s:1)" % KP, run(["online", D, "--oss", str(X)], env=dict(os.environ, EXARAID_KILL_AT=KP + ":1")))
if KP == "online-stripe":
    say("rebuild X instead of a rerun", run(["rebuild", D, "--oss", str(X)]))
print("status:", run(["status", D]).stdout.decode(errors="replace").strip().replace("\n", " | ")[-300:])
say("END T1", run(["delayed", "end", D, t1]))
say("write B over the range", run(["write", D, "f1", "--offset", str(OFF)], B))
print("lost now:", lost())
t2 = run(["delayed", "start", D, "f1"]).stdout.decode().strip()
say("write C in window T2", run(["write", D, "f1", "--offset", str(OFF)], C))
say("fail X again", run(["fail", D, "--oss", str(X)]))
print("lost now:", lost())
say("online X", run(["online", D, "--oss", str(X)]))
p = run(["read", D, "f1", "--offset", str(OFF), "--length", str(LEN)])
got = {A: "A (STALE: WRONG BYTES)", B: "B (older, WRONG)", C: "C (right)"}.get(p.stdout, "other %r" % p.stdout[:8])
print("read f1 at OFF: rc=%d -> %s %s" % (p.returncode, got if p.returncode == 0 else "", p.stderr.decode(errors="replace")[:200]))
