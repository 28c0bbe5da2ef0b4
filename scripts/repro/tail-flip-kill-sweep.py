#!/usr/bin/env python3
# Review s12r tool (not CI). Build the shim: gcc -O2 -shared -fPIC -o /tmp/repro-r12-killshim.so scripts/killshim.c -ldl
"""Kill -9 a command at every durable call K, then flip one bit in the journal's LAST record
(whatever it is: the damage the tail-cut code exists for), open: every other file must read
exactly, the command's file old or new (rm: old or absent; write: each byte old or new),
never other bytes with exit 0. Prints each bad case and a DONE line (R12-1, R12-7 found so).
Usage: tail-flip-kill-sweep.py CMD K1-K2   CMD: put | rm | write | flush | end, and (review s14r)
  start | fail | rebuild | rebuildto | online | flushdeg (flush with OSS 1 failed) | scrubrepair
Env: EXARAID, SHIM, WPATH (rmw|wcl|delayed), CODE (raid5; with its parameters, e.g. "dcode --p 5"),
FLIPAT (mid | len- | len+ | crc | first | last: where the one damaged byte is), REPRO_DIR; EXARAID_KILLED: the
binary of the killed command only (default EXARAID; an older one leaves an older journal);
DETAIL=1 counts ok-old / ok-new (the file read back as before the killed command, or changed)
instead of ok."""
import os, sys, subprocess, shutil, random
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from importlib import import_module
recs = import_module("journal-records").recs
E = os.environ.get("EXARAID", "exaraid"); SH = os.environ.get("SHIM", "/tmp/repro-r12-killshim.so")
R = os.environ.get("REPRO_DIR", "/tmp/repro-r12-tf"); WP = os.environ.get("WPATH", "wcl"); CODE = os.environ.get("CODE", "raid5")
CMD = sys.argv[1]; k1, k2 = map(int, sys.argv[2].split("-"))
K = os.environ.get("EXARAID_KILLED", E)
def run(a, inp=b"", env=None, exe=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([exe or E, "store"] + a, input=inp, capture_output=True, env=e, timeout=300)
rng = random.Random(5); A = rng.randbytes(30000); B = rng.randbytes(30000); G = rng.randbytes(20000)
W = rng.randbytes(5000); O = 700
d = R + "/s"; stats = {}
for k in range(k1, k2 + 1):
    shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
    assert run(["init", d, "--oss", "5", *(["--code"] + CODE.split()), "--stripe-unit", "4096", "--write-path", WP]).returncode == 0
    run(["put", d, "f"], A); run(["put", d, "g"], G)
    tok = None
    if WP == "delayed" and CMD in ("write", "end", "flush"):
        tok = run(["delayed", "start", d, "f"]).stdout.decode().strip()
    cur = bytearray(A)
    if CMD in ("rebuild", "online", "flushdeg"): run(["fail", d, "--oss", "1"])
    if CMD in ("flush", "end", "online", "flushdeg"):
        run(["write", d, "f", "--offset", str(O)], W); cur[O:O + len(W)] = W
    args = {"put": ["put", d, "f"], "rm": ["rm", d, "f"], "write": ["write", d, "f", "--offset", str(O)],
            "flush": ["flush", d], "end": ["delayed", "end", d, tok or "x"],
            "start": ["delayed", "start", d, "f"], "online": ["online", d, "--oss", "1"], "flushdeg": ["flush", d], "fail": ["fail", d, "--oss", "1"], "rebuild": ["rebuild", d, "--oss", "1"],
            "rebuildto": ["rebuild", d, "--oss", "1", "--to", R + "/new1"], "scrubrepair": ["scrub", d, "--repair"]}[CMD]
    if CMD == "rebuildto": run(["fail", d, "--oss", "1"])
    if CMD == "scrubrepair":  # bit rot for the repair to fix: one byte of OSS 2's first data element
        import glob
        for zf in sorted(glob.glob(d + "/oss-2/objects/*.data"))[:1]:
            with open(zf, "r+b") as fh: fh.seek(100); c = fh.read(1); fh.seek(100); fh.write(bytes([c[0] ^ 0x40]))
    p = run(args, B if CMD == "put" else W, env={"LD_PRELOAD": SH, "KILLN": str(k)}, exe=K)
    if p.returncode != -9: print("k=%d: not killed (rc %d): done" % (k, p.returncode)); break
    b = bytearray(open(d + "/journal", "rb").read()); rs = recs(bytes(b)); kind = rs[-1][2] if rs else "-"
    if rs:
        at, ln = rs[-1][0], rs[-1][1]
        # s14r: where the one damaged byte is (FLIPAT): mid (as before), len- / len+ (the
        # length field smaller / larger), crc, first / last (payload byte).
        fa = os.environ.get("FLIPAT", "mid")
        if fa == "mid": b[at + 8 + ln // 2 - 2] ^= 0x08
        elif fa == "len-": b[at] ^= (b[at] & -b[at]) or 0x01  # clear the lowest set bit
        elif fa == "len+": b[at + 1] ^= 0x10
        elif fa == "crc": b[at + 5] ^= 0x20
        elif fa == "first": b[at + 8] ^= 0x01
        elif fa == "last": b[at + ln - 1] ^= 0x01
        open(d + "/journal", "wb").write(b)
    gf = run(["get", d, "f"]); gg = run(["get", d, "g"])
    bad = []
    if gg.returncode != 0 or gg.stdout != G: bad.append("g rc=%d %s" % (gg.returncode, "WRONG" if gg.returncode == 0 else gg.stderr[:120]))
    if gf.returncode == 0:
        x = gf.stdout
        if CMD == "put": ok = x in (A, B)
        elif CMD == "rm": ok = x == A
        elif CMD == "write": ok = len(x) == len(A) and all(x[i] == A[i] or (O <= i < O + len(W) and x[i] == W[i - O]) for i in range(len(x)))
        elif CMD in ("start", "fail", "rebuild", "rebuildto", "scrubrepair"): ok = x == A
        else: ok = x == bytes(cur)
        if not ok: bad.append("f WRONG (%d bytes, %d zeros)" % (len(x), x.count(0)))
    elif not (CMD == "rm" and b"no file" in gf.stderr): bad.append("f rc=%d %s" % (gf.returncode, gf.stderr[:150]))
    key = "bad" if any("WRONG" in x for x in bad) else ("refused" if bad else "ok")
    if key == "ok" and os.environ.get("DETAIL") == "1" and gf.returncode == 0:
        # Which of the allowed outcomes (s13a): the killed command's old or new bytes.
        key = "ok-old" if gf.stdout == A else "ok-new" if gf.stdout != A else key
    stats[key] = stats.get(key, 0) + 1
    if bad: print("k=%d last=%s: %s" % (k, kind, "; ".join(str(x) for x in bad)), flush=True)
print("DONE %s %s %s: %s" % (CMD, WP, CODE, stats))
