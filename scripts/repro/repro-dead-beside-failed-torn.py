#!/usr/bin/env python3
"""Repro (review s8r, not CI): WRONG BYTES with exit 0 on rmw raid6 (k=5 over 7 OSSs, 4 KiB
unit). OSS 0 failed on record, then an rmw write into f1 (16540 + 4196 bytes, across the first
stripe boundary) killed by the store's own kill point `write-torn-block:K` (a block's payload
written, its checksum not); before anything reopens the store, OSS 1's disk dies for good
(directory emptied) and the operator runs `store fail --oss 1` (the documented way out). Then
`read f1` of 4 KiB blocks: some exit 0 with bytes that are neither the old nor the new bytes of
the cut write (outside its range: acknowledged bytes). The outcome depends on which of the
write's parallel block writes landed before the kill, so each K is tried TRIES times.
Also printed: blocks that refuse to read but are not on record LOST (`status` does not list
them; the LOST message says "every other byte reads").

Usage: repro-dead-beside-failed-torn.py [K1,K2,..] [TRIES]   (default 2,3,4 and 6)
Env: EXARAID (default /work/target-s8r/release/exaraid), REPRO_DIR (scratch), CODE (crash-geom
spelling, default raid6), NOSS (default 7), FAILS (default 0), DEAD (default 1), SEED (default
301: the setup of scripts/multifail-kill.py `write`), WP (default rmw).
Exit 1 when a WRONG read was seen."""
import importlib.util
import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("EXARAID", "/work/target-s8r/release/exaraid")
os.environ["KILLAT"] = "write-torn-block"
spec = importlib.util.spec_from_file_location("mf", os.path.join(HERE, "..", "multifail-kill.py"))
mf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mf)
cg = mf.cg

code = os.environ.get("CODE", "raid6")
noss = int(os.environ.get("NOSS", "7"))
wp = os.environ.get("WP", "rmw")
fails = [int(x) for x in os.environ.get("FAILS", "0").split(",") if x]
dead = int(os.environ.get("DEAD", "1"))
seed = int(os.environ.get("SEED", "301"))
ks = [int(x) for x in sys.argv[1].split(",")] if len(sys.argv) > 1 else [2, 3, 4]
tries = int(sys.argv[2]) if len(sys.argv) > 2 else 6
base = os.environ.get("REPRO_DIR") or cg.scratch("s8r-dbft")
d = os.path.join(base, "s")
seen_wrong = 0
for k in ks:
    for t in range(tries):
        files, cmd, inp, finish, note = mf.setup("write", code, noss, 4096, wp, seed, d, fails)
        p = cg.run(cmd, inp, kill_n=k)
        if p.returncode == 0:
            print("K=%d: not killed" % k)
            break
        shutil.rmtree(os.path.join(d, "oss-%d" % dead))
        os.makedirs(os.path.join(d, "oss-%d" % dead))
        q = cg.run(["fail", d, "--oss", str(dead)])
        st = json.loads(cg.run(["status", d, "--json"]).stdout)
        lost = [(l["file"], l["offset_bytes"], l["offset_bytes"] + l["len_bytes"]) for l in st["lost_ranges"]]
        _, old, new = files["f1"]
        off = int(cmd[cmd.index("--offset") + 1])
        wrong, unrec = [], []
        for b in range(0, len(old), 4096):
            m = min(4096, len(old) - b)
            r = cg.run(["read", d, "f1", "--offset", str(b), "--length", str(m)])
            if r.returncode:
                if not any(s < b + m and b < e for f, s, e in lost if f == "f1"):
                    unrec.append(b)
                continue
            bad = [i for i in range(m) if r.stdout[i] != old[b + i] and r.stdout[i] != new[b + i]]
            if bad:
                outside = [i for i in bad if not (off <= b + i < off + len(inp))]
                wrong.append("block %d: read rc 0, %d bytes neither old nor new (%d outside the cut write %d..%d), first at %d"
                             % (b, len(bad), len(outside), off, off + len(inp), b + bad[0]))
        print("K=%d try %d: fail rc %d, LOST on record %s, unreadable not on record %s%s" % (
            k, t, q.returncode, [(s, e) for f, s, e in lost], unrec, "".join("\n   WRONG " + w for w in wrong)), flush=True)
        if wrong:
            seen_wrong += 1
            print("   store kept at %s (get f1 there)" % d)
            sys.exit(1)
print("no WRONG read in %d tries" % (len(ks) * tries))
