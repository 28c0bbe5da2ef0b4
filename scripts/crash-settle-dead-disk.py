#!/usr/bin/env python3
"""Sweep tool (engineer s6a, not CI; review s5s S2): crash-geom.py setup `flush` (4 files put,
4 writes into f1 cached; WCL, 64 KiB unit), `rm f3` (a settle) killed -9 while every OSS is
up, then OSS O's disk gone for good (directory emptied), `store fail --oss O`, every file read.
Counts per case: WRONG (a file reads other bytes with exit 0: must never happen), LOST (`fail`
printed LOST lines; reads may refuse those files), OTHER (a refusal with no LOST line, or
`fail` failing), clean.
Usage: crash-settle-dead-disk.py KILLS OSSES
  KILLS: a Python expression for durable-call numbers of the killshim (e.g. "range(3,169,4)"),
         or comma-separated store kill points (EXARAID_KILL_AT, e.g.
         "settle-element:8,settle-torn-block:8": no shim needed)
  OSSES: comma-separated dead OSSs (e.g. 0,1,2)
Env: EXARAID (binary), SHIM (killshim .so, see scripts/killshim.c), CODE (default raid6, as
crash-geom.py: rs:4:2, raid5, ...), NOSS (default 6), S6A_DIR (scratch, default
/tmp/s6a-csdd), FAILOSS (crash-geom.py: an OSS failed before the writes; a second failure),
UNIT (stripe unit bytes, default 65536), SEED (default 7), TEAR=1 (killshim tears the killed
write: half of it lands; outside the kill -9 model rule (0) assumes, review s6s).
REKILL=<point>:<n> (s11e): the `fail` that recovers is killed too at that store kill point (a
redo of the cut settle cut again), then `fail` runs again and finishes it.
REBUILD=1 (s7a, brief item 2: the S2 remainder): after the checks, `rebuild --oss O` onto the
emptied directory, then every file is read again in 4 KiB pieces (the LOST ranges `status`
lists must refuse, every other piece must read its acknowledged bytes) and `scrub` must exit
0, or 2 with LOST ranges listed (and no parity mismatch). Cases counted REBUILT (clean after it) or REBUILD-BAD.
Prints one line per case that is not clean and a DONE line with the counts."""
import os, sys, shutil, subprocess
kills, osses = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash-geom.py")
cg = type(sys)("cg"); src = open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n')
exec(compile(src, "cg", "exec"), cg.__dict__)
d = os.environ.get("S6A_DIR", "/tmp/s6a-csdd") + "/s"
code = os.environ.get("CODE", "raid6"); noss = int(os.environ.get("NOSS", "6"))
unit = int(os.environ.get("UNIT", "65536")); seed = int(os.environ.get("SEED", "7"))
tear = bool(os.environ.get("TEAR"))
points = kills.split(",") if ":" in kills else list(eval(kills))
c = dict(wrong=0, lost=0, clean=0, other=0, notkilled=0, rebuilt=0, rebuild_bad=0)
import json


def after_rebuild(d, files, o):
    """s7a: rebuild O, then every 4 KiB piece of every file: lost ranges refuse, the rest reads
    acknowledged bytes; scrub exits 0, or 2 with only LOST lines. Returns the problems."""
    bad = []
    r = cg.run(["rebuild", d, "--oss", str(o)])
    if r.returncode != 0:
        return ["rebuild rc %d: %s" % (r.returncode, r.stderr.decode(errors="replace")[-300:])]
    st = json.loads(cg.run(["status", d, "--json"]).stdout)
    lost = [(l["file"], l["offset_bytes"], l["offset_bytes"] + l["len_bytes"]) for l in st["lost_ranges"]]
    names = set(cg.run(["ls", d]).stdout.decode().split())
    for nm, acc in files.items():
        allowed = [a for a in (acc[1:] if isinstance(acc, tuple) else acc) if a is not None]
        if not allowed or (nm not in names and isinstance(acc, list) and None in acc):
            continue
        size = max(len(a) for a in allowed)
        # 64 KiB pieces, 4 KiB ones where a LOST range is near (lost ranges are 4 KiB blocks)
        pieces = []
        for big in range(0, size, 65536):
            if any(f == nm and a < big + 65536 and big < z for f, a, z in lost):
                pieces += [(at, min(4096, size - at)) for at in range(big, min(size, big + 65536), 4096)]
            else:
                pieces.append((big, min(65536, size - big)))
        for at, n in pieces:
            g = cg.run(["read", d, nm, "--offset", str(at), "--length", str(n)])
            in_lost = any(f == nm and a < at + n and at < z for f, a, z in lost)
            if g.returncode != 0:
                if not in_lost:
                    bad.append("%s %d+%d rc %d: %s" % (nm, at, n, g.returncode, g.stderr.decode(errors="replace")[-200:]))
                continue
            if in_lost:
                bad.append("%s %d+%d reads exit 0 inside a LOST range" % (nm, at, n))
            if not any(g.stdout == a[at:at + n] for a in allowed):
                bad.append("%s %d+%d WRONG BYTES exit 0 after the rebuild" % (nm, at, n))
    s = cg.run(["scrub", d])
    out = (s.stdout + s.stderr).decode(errors="replace")
    # (blocks marked lost are listed as corrupt too: those lines are not told apart here)
    if s.returncode not in (0, 2) or (s.returncode == 2 and not lost) or "parity mismatches: 0" not in out:
        bad.append("scrub rc %d: %s" % (s.returncode, out[-300:]))
    return bad
for k in points:
    for o in osses:
        files, cmd, inp, finish, fail = cg.setup("flush", code, noss, unit, "wcl", seed, d)
        if isinstance(k, str):
            env = dict(os.environ); env.pop("LD_PRELOAD", None); env["EXARAID_KILL_AT"] = k
            p = subprocess.run([cg.E, "store"] + cmd, input=inp, capture_output=True, env=env)
        else:
            p = cg.run(cmd, inp, kill_n=k, tear=tear)
        if p.returncode != -9:
            c["notkilled"] += 1; continue
        shutil.rmtree(d + "/oss-%d" % o); os.makedirs(d + "/oss-%d" % o)
        rekilled = ""
        if os.environ.get("REKILL"):
            # s11e: the recovery `fail` runs (its redo of the cut settle) killed too, at a
            # store kill point; the next `fail` finishes it (what it prints is counted).
            env = dict(os.environ); env.pop("LD_PRELOAD", None); env["EXARAID_KILL_AT"] = os.environ["REKILL"]
            r = subprocess.run([cg.E, "store", "fail", d, "--oss", str(o)], capture_output=True, env=env)
            rekilled = " (fail killed too)" if r.returncode == -9 else " (fail not killed: rc %d)" % r.returncode
            c["rekilled"] = c.get("rekilled", 0) + (r.returncode == -9)
        f = cg.run(["fail", d, "--oss", str(o)])
        fout = (f.stdout + f.stderr).decode(errors="replace")
        if rekilled:
            fout = (r.stdout + r.stderr).decode(errors="replace") + fout
        bad = cg.check(d, files, "after fail")
        lost = fout.count("LOST")
        if rekilled and "lost range(s) stay on record" in fout:
            # Recorded by the killed `fail` before its kill: the rerun names them only.
            lost = max(lost, 1)
        if any("WRONG" in b for b in bad):
            c["wrong"] += 1; print("K=%s O=%d WRONG%s" % (k, o, rekilled), bad[0][:200], flush=True)
        elif f.returncode != 0 or (bad and not lost):
            c["other"] += 1; print("K=%s O=%d OTHER fail rc %d%s" % (k, o, f.returncode, rekilled), fout[-200:], bad[:1], flush=True)
        elif lost:
            c["lost"] += 1; print("K=%s O=%d LOST %d lines%s" % (k, o, lost, rekilled), flush=True)
        else:
            c["clean"] += 1
        if os.environ.get("REBUILD") and f.returncode == 0:
            rb = after_rebuild(d, files, o)
            if rb:
                c["rebuild_bad"] += 1; print("K=%s O=%d REBUILD-BAD" % (k, o), rb[:3], flush=True)
            else:
                c["rebuilt"] += 1
shutil.rmtree(os.path.dirname(d), ignore_errors=True)
print("DONE", code, noss, "FAILOSS=%s" % os.environ.get("FAILOSS", ""), c, flush=True)
