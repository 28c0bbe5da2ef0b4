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
c = dict(wrong=0, lost=0, clean=0, other=0, notkilled=0)
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
        f = cg.run(["fail", d, "--oss", str(o)])
        fout = (f.stdout + f.stderr).decode(errors="replace")
        bad = cg.check(d, files, "after fail")
        lost = fout.count("LOST")
        if any("WRONG" in b for b in bad):
            c["wrong"] += 1; print("K=%s O=%d WRONG" % (k, o), bad[0][:200], flush=True)
        elif f.returncode != 0 or (bad and not lost):
            c["other"] += 1; print("K=%s O=%d OTHER fail rc %d" % (k, o, f.returncode), fout[-200:], bad[:1], flush=True)
        elif lost:
            c["lost"] += 1; print("K=%s O=%d LOST %d lines" % (k, o, lost), flush=True)
        else:
            c["clean"] += 1
shutil.rmtree(os.path.dirname(d), ignore_errors=True)
print("DONE", code, noss, "FAILOSS=%s" % os.environ.get("FAILOSS", ""), c, flush=True)
