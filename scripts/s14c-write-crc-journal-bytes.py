#!/usr/bin/env python3
"""Journal bytes one WCL client write appends, per record kind, with its crcs (the default)
and without (EXARAID_BENCH_WRITE_CRCS=none: as main before session 14 on raid5 and the array
codes). The close checkpoints the journal away, so each `store write` is killed after its
n-th journal record (EXARAID_KILL_AT=journal-record:n, plan order), n = 1, 2, ... until it
exits by itself; the longest journal so seen holds every record the write appended.
usage: s14c-write-crc-journal-bytes.py EXARAID"""
import os, subprocess, sys, shutil, json, tempfile

E = sys.argv[1]
CODES = [("raid5 k=4", ["--code", "raid5", "--k", "4"], 5),
         ("raid6 k=4", ["--code", "raid6", "--k", "4"], 6),
         ("rdp p=5", ["--code", "rdp", "--p", "5"], 6),
         ("dcode p=5", ["--code", "dcode", "--p", "5"], 5)]
WRITES = [(1000, 3000), (8192, 4096), (16384, 65536)]


def run(a, i=b"", env=None):
    e = dict(os.environ)
    e.pop("EXARAID_BENCH_WRITE_CRCS", None)
    e.update(env or {})
    return subprocess.run([E] + a, input=i, capture_output=True, env=e)


def pattern(seed, n):
    return bytes(((i * 31 + seed) & 0xFF) ^ ((i >> 8) & 0xFF) for i in range(n))


def records(j, at):
    out = []
    while at + 8 <= len(j):
        ln = int.from_bytes(j[at:at + 4], "little")
        if at + 8 + ln > len(j):
            break
        rec = json.loads(j[at + 8:at + 8 + ln])["rec"]
        out.append((list(rec.keys())[0] if isinstance(rec, dict) else rec, 8 + ln))
        at += 8 + ln
    return out


base = tempfile.mkdtemp(prefix="s14c-jb-")
try:
    for name, code, oss in CODES:
        for setting in ("none", "crcs"):
            env = {"EXARAID_BENCH_WRITE_CRCS": "none"} if setting == "none" else {}
            d, p = base + "/s", base + "/pristine"
            # The superblock names the OSS directories by absolute path: the store lives
            # at `d`, its pristine copy `p` is laid back there before each run.
            shutil.rmtree(d, ignore_errors=True)
            shutil.rmtree(p, ignore_errors=True)
            r = run(["store", "init", d, "--oss", str(oss), "--stripe-unit", "4096", "--write-path", "wcl"] + code)
            assert r.returncode == 0, r.stderr
            assert run(["store", "put", d, "f"], pattern(1, 200000)).returncode == 0
            shutil.copytree(d, p)
            l0 = os.path.getsize(p + "/journal")
            for (o, n) in WRITES:
                best = []
                for k in range(1, 40):
                    shutil.rmtree(d, ignore_errors=True)
                    shutil.copytree(p, d)
                    kenv = dict(env, EXARAID_KILL_AT=f"journal-record:{k}", EXARAID_KILL_IN_PLAN_ORDER="1")
                    r = run(["store", "write", d, "f", "--offset", str(o)], pattern(10, n), kenv)
                    if r.returncode == 0:
                        break
                    recs = records(open(d + "/journal", "rb").read(), l0)
                    if len(recs) > len(best):
                        best = recs
                kinds = {}
                for kind, b in best:
                    kinds[kind] = kinds.get(kind, 0) + b
                crc_bytes = kinds.get("WriteCrcs", 0) + kinds.get("WriteParityCrcs", 0)
                total = sum(kinds.values())
                print(f"| {name} | {setting} | {n} at {o} | {total} | {crc_bytes} | "
                      + ", ".join(f"{k} {v}" for k, v in kinds.items()) + " |", flush=True)
finally:
    shutil.rmtree(base)
