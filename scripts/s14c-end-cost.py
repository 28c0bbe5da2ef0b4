#!/usr/bin/env python3
"""Wall time of `store delayed end` (raid5 over 5, 4 KiB unit, a window of 6 writes into a
60000-byte file: the scene of s13k-end-records.py) for two binaries, alternating per round,
and the latency of one ~300-byte append + fdatasync in the same directory (what the synced
`EndParityCrcs` adds per END wave). usage: s14c-end-cost.py BEFORE AFTER [ROUNDS]"""
import os, subprocess, sys, shutil, tempfile, time, statistics
A, B = sys.argv[1], sys.argv[2]
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 10
base = tempfile.mkdtemp(prefix="s14c-end-")
def pattern(seed, n): return bytes(((i * 31 + seed) & 0xFF) ^ ((i >> 8) & 0xFF) for i in range(n))
def run(E, a, i=b""):
    r = subprocess.run([E] + a, input=i, capture_output=True); assert r.returncode == 0, r.stderr; return r
def end_ms(E):
    d = base + "/s"; shutil.rmtree(d, ignore_errors=True)
    run(E, ["store","init",d,"--oss","5","--stripe-unit","4096","--write-path","delayed","--window-timeout-ms","600000","--code","raid5"])
    run(E, ["store","put",d,"f"], pattern(1,60000))
    tok = run(E, ["store","delayed","start",d,"f"]).stdout.decode().strip()
    for i,(o,n) in enumerate([(5000,3000),(9000,6000),(16484,3000),(25076,4000),(32768,8192),(45056,4096)]):
        run(E, ["store","write",d,"f","--offset",str(o)], pattern(10+i,n))
    t = time.monotonic(); run(E, ["store","delayed","end",d,tok]); return (time.monotonic() - t) * 1e3
try:
    f = os.open(base + "/j", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    lat = []
    for _ in range(50):
        t = time.monotonic(); os.write(f, b"x" * 300); os.fdatasync(f); lat.append((time.monotonic() - t) * 1e3)
    os.close(f)
    lat.sort()
    print(f"append+fdatasync 300 B in {base}: median {statistics.median(lat):.2f} ms, p90 {lat[44]:.2f} ms")
    res = {A: [], B: []}
    for r in range(ROUNDS):
        for E in ([A, B] if r % 2 == 0 else [B, A]):
            res[E].append(end_ms(E))
    for E in (A, B):
        v = res[E]
        print(f"{E}: END ms {[round(x,1) for x in v]} median {statistics.median(v):.1f}")
finally:
    shutil.rmtree(base)
