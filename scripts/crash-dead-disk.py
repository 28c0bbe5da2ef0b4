#!/usr/bin/env python3
"""Review tool (engineer s5s, not CI): brief item 2 (E13: recovery waits for a down OSS).
A write (crash-geom.py scenario SCEN, CODE over NOSS OSSs, 64 KiB unit) is killed -9 at
durable call K, then OSS o's disk dies for good (its directory moved away, never back).
Before the operator acts, get / write / put / rm / scrub / rebuild must not exit 0 (none may
proceed silently; `status` may exit 0 only saying RECOVERY PENDING or the OSS FAILED). Then
`store fail --oss o` must succeed, every file must read (acked bytes exact, the killed write
each byte old or new; a file may fail to read only if `fail` printed LOST lines), then
`rebuild --oss o` in place and scrub must be clean, and a second failure read everything.
Usage: crash-dead-disk.py PATH [CODE] [NOSS]  (PATH rmw|wcl|delayed; CODE default raid6:4; NOSS 9)
Env: KS (kill points, default 4,8,12,16,20,28), OS (dead OSSs, default 0,2,4,6,8), SCEN
(default write), EXARAID, SHIM, S4E_DIR (scratch, default /tmp/s5s-dd).
Prints one line per case with a problem and "DONE ... N of M cases with problems"."""
import os, sys, subprocess, shutil
PATH = sys.argv[1]; CODE = sys.argv[2] if len(sys.argv) > 2 else "raid6:4"
NOSS = int(sys.argv[3]) if len(sys.argv) > 3 else 9
sys.argv = ["x"]
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash-geom.py")
cg = type(sys)("cg"); src = open(here).read().replace('\nif __name__ == "__main__":\n    main()\n', '\n')
exec(compile(src, "cg", "exec"), cg.__dict__)
d = os.environ.get("S4E_DIR", "/tmp/s5s-dd") + "/s"
KS = [int(x) for x in os.environ.get("KS", "4,8,12,16,20,28").split(",")]
OS_ = [int(x) for x in os.environ.get("OS", "0,2,4,6,8").split(",")]
SCEN = os.environ.get("SCEN", "write")
found = cases = npend = nlost = 0
for k in KS:
    for o in OS_:
        if o >= NOSS:
            continue
        files, cmd, inp, finish, fail = cg.setup(SCEN, CODE, NOSS, 65536, PATH, 7, d)
        p = cg.run(cmd, inp, kill_n=k)
        if p.returncode != -9:
            continue
        cases += 1
        bad = []
        shutil.rmtree(d + "-away", ignore_errors=True)
        shutil.move(d + "/oss-%d" % o, d + "-away")
        os.makedirs(d + "/oss-%d" % o)  # an empty mount point: the disk is gone
        st = cg.run(["status", d])
        out = (st.stdout + st.stderr).decode(errors="replace")
        # The kill may land after the write's Durable record reached the journal: nothing
        # to recover, the store opens with the OSS down as before (by design), so the
        # must-refuse checks apply only when recovery is pending.
        pending = "needs crash recovery" in out or "RECOVERY PENDING" in out
        if st.returncode == 0 and "RECOVERY PENDING" not in out and "FAILED" not in out and "UNAVAIL" not in out:
            bad.append("status exit 0 naming neither RECOVERY PENDING nor a FAILED OSS: %s" % out[-300:])
        for a, i in () if not pending else ((["get", d, "f1"], b""), (["write", d, "f2", "--offset", "5"], b"xyz"),
                     (["put", d, "new"], b"abc"), (["rm", d, "f0"], b""), (["scrub", d], b""),
                     (["ls", d], b"")):
            q = cg.run(a, i)
            if q.returncode == 0:
                bad.append("%s exit 0 before fail (proceeded without recovery?): %s" % (a[0], (q.stdout + q.stderr).decode(errors="replace")[-200:]))
        f = cg.run(["fail", d, "--oss", str(o)])
        fout = (f.stdout + f.stderr).decode(errors="replace")
        if f.returncode != 0:
            bad.append("fail --oss %d rc %d: %s" % (o, f.returncode, fout[-300:]))
        lost = "LOST" in fout
        npend += pending; nlost += lost
        cb = cg.check(d, files, "k=%d dead %d, failed" % (k, o))
        if lost:
            cb = [b for b in cb if "WRONG" in b]  # fail said LOST: refusals allowed, wrong bytes never
        bad += cb
        rb = cg.run(["rebuild", d, "--oss", str(o)])
        if rb.returncode != 0:
            bad.append("rebuild rc %d: %s" % (rb.returncode, (rb.stdout + rb.stderr).decode(errors="replace")[-300:]))
        s = cg.run(["scrub", d])
        if s.returncode != 0 and not lost:
            bad.append("scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-300:]))
        if not lost and not bad:
            second = (o + 1) % NOSS
            cg.run(["fail", d, "--oss", str(second)])
            bad += cg.check(d, files, "k=%d dead %d rebuilt, then OSS %d failed" % (k, o, second))
        if lost and os.environ.get("SHOWLOST"):
            ls = [l for l in fout.splitlines() if l.startswith("LOST")]
            print("K=%d dead OSS %d: fail recorded %d LOST lines, first: %s" % (k, o, len(ls), ls[0][:160]), flush=True)
        if bad:
            found += 1
            print("K=%d dead OSS %d%s:" % (k, o, " (fail said LOST)" if lost else ""), *bad[:4], sep="\n  ", flush=True)
print("DONE dead-disk %s %s %s: %d of %d cases with problems (%d with recovery pending, %d where fail recorded LOST)" % (SCEN, CODE, PATH, found, cases, npend, nlost))
