#!/usr/bin/env python3
"""Repro sweep (review s8r, not CI) for R8-5 / R8-6: the scripts/multifail-kill.py `write`
setup (4 files, FAILS failed first, 4 acknowledged writes into f1), the write into f1 killed by
the kill shim at each call of ARG2, then OSS DEAD's directory emptied (disk dead) before anything
reopens the store, `store fail --oss DEAD`; then every 4 KiB block of every file read. Prints per
kill point: fail's rc (and message), the LOST ranges on record, blocks that refuse to read but
are NOT on record, and WRONG blocks (rc 0, bytes neither old nor new).

Usage: repro-dead-beside-failed-sweep.py DEAD K1,K2,.. [SEED]
Env: CODE (default rs:4:3), NOSS (8), FAILS (0,2), WP (rmw), EXARAID, SHIM (/tmp/s8r-killshim.so),
  KILLAT=write-torn-block (the store's kill point instead of the shim), REPRO_DIR (scratch).
  R8-6: CODE=rs:4:3 NOSS=8 FAILS=0,2 DEAD=1 K=16,20,24,28: `fail` rc 1 although it recorded OSS 1.
  R8-5: CODE=raid6 NOSS=7 FAILS=0 DEAD=1 K=4..14: unreadable blocks not on record."""
import os, sys, shutil, importlib.util, json
os.environ.setdefault("EXARAID", "/work/target-s8r/release/exaraid")
os.environ.setdefault("SHIM", "/tmp/s8r-killshim.so")
spec = importlib.util.spec_from_file_location("mf", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "multifail-kill.py"))
mf = importlib.util.module_from_spec(spec); spec.loader.exec_module(mf)
cg = mf.cg
code = os.environ.get("CODE","rs:4:3"); noss = int(os.environ.get("NOSS","8")); wp = os.environ.get("WP","rmw")
fails = [int(x) for x in os.environ.get("FAILS","0,2").split(",") if x]
dead = int(sys.argv[1]); ns = [int(x) for x in sys.argv[2].split(",")]; seed = int(sys.argv[3]) if len(sys.argv) > 3 else 301
d = os.path.join(os.environ.get("REPRO_DIR") or cg.scratch("s8r-dbfs"), "%s-%d" % (code.replace(":", "_"), dead))
for n in ns:
    files, cmd, inp, finish, note = mf.setup("write", code, noss, 4096, wp, seed, d, fails)
    p = cg.run(cmd, inp, kill_n=n)
    if p.returncode != -9:
        print("n=%d not killed" % n); break
    where = p.stderr.decode().strip().replace("KILLSHIM: kill at ", "")[:80]
    shutil.rmtree(d + "/oss-%d" % dead); os.makedirs(d + "/oss-%d" % dead)
    q = cg.run(["fail", d, "--oss", str(dead)])
    st = json.loads(cg.run(["status", d, "--json"]).stdout)
    lost = [(l["file"], l["offset_bytes"], l["offset_bytes"] + l["len_bytes"]) for l in st["lost_ranges"]]
    unrec, wrong = [], []
    for nm, acc in files.items():
        if isinstance(acc, tuple):
            _, old, new = acc; cands = None
        else:
            old = acc[0]; new = None
        size = len(old)
        for b in range(0, size, 4096):
            m = min(4096, size - b)
            r = cg.run(["read", d, nm, "--offset", str(b), "--length", str(m)])
            onrec = any(f == nm and s < b + m and b < e for f, s, e in lost)
            if r.returncode:
                if not onrec:
                    unrec.append((nm, b))
            else:
                ok = r.stdout == old[b:b+m] or (new is not None and cg.diff_count(r.stdout, new[b:b+m], old[b:b+m])[0] == 0)
                if not ok: wrong.append((nm, b))
    print("n=%2d %-80s fail rc %d%s | LOST on record %d | unreadable NOT on record %d %s | WRONG %d %s" % (
        n, where, q.returncode, (" (" + q.stderr.decode().strip()[-400:] + ")") if q.returncode else "", len(lost), len(unrec), unrec[:4], len(wrong), wrong[:3]), flush=True)
