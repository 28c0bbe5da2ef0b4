#!/usr/bin/env python3
"""Review s6s (S6-1 candidate): exec.rs `reset_lost_rows_written_whole` zeroes EVERY
undecodable row an rmw write covers whole in a stripe with some lost range on record, also a
row that is undecodable but not on record (bit rot found after the record). A kill -9 after
the reset, before the write's own data lands: the zeros carry fresh checksums, nothing
records them lost, and the read returns zeros with exit 0 (neither the old nor the new bytes).
raid5 4+1 over 5, 64 KiB unit, rmw: a 4 KiB write into element 1's block 5 killed -9 at its
6th durable call (payloads written), OSS 0's disk gone, `store fail --oss 0`: recovery records
file bytes 20480..24576 LOST (row 5, S1's raid5 price); then a flip in OSS 1's block 3 (rot,
not on record: row 3 undecodable, reads refuse); a write of [12 KiB, 80 KiB) (covers elements
0 and 1's block 3 whole) killed at its durable call K.
Usage: repro-reset-lost-row-kill.py [K...]   Env: EXARAID, SHIM (killshim .so), REPRO_DIR,
NOFLIP=1 (no rot: row 3 decodable), NOLOST=1 (no first cut write: nothing on record lost), REPEAT (each K this many times),
CODE=raid6 (4+2 over 6)."""
import os, sys, subprocess, random, shutil, tempfile
E = os.environ.get("EXARAID", "/work/target-s6s/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s6s-killshim.so")
base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="s6s-reset-")
D = os.path.join(base, "s")
def run(args, inp=b"", kill=None):
    env = dict(os.environ); env.pop("LD_PRELOAD", None)
    if kill is not None:
        env.update(LD_PRELOAD=SHIM, KILLN=str(kill), KILLTEAR="0")
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env)
def must(p, what):
    if p.returncode != 0:
        sys.exit("%s failed rc %d: %s" % (what, p.returncode, p.stderr.decode()[-300:]))
    return p
def flip(oss, off):
    path = "%s/oss-%d/objects/0.data" % (D, oss)
    with open(path, "r+b") as f:
        f.seek(off); b = f.read(1); f.seek(off); f.write(bytes([b[0] ^ 0x40]))
U, B = 65536, 4096
old = random.Random(1).randbytes(4 * U)
new = random.Random(2).randbytes(U + 4 * B - 3 * B)
woff = 3 * B
ks = [int(x) for x in sys.argv[1:]] or list(range(1, 40))
ks = ks * int(os.environ.get("REPEAT", "1"))  # the plan's threads race: kill points move
counts = dict(wrong=0, refused=0, ok=0, notkilled=0)
for k in ks:
    shutil.rmtree(D, ignore_errors=True)
    code = os.environ.get("CODE", "raid5")  # raid6: --oss 6 (k=4 still)
    must(run(["init", D, "--oss", "5" if code == "raid5" else "6", "--code", code, "--stripe-unit", str(U), "--write-path", "rmw"]), "init")
    must(run(["put", D, "f"], old), "put")
    if not os.environ.get("NOLOST"):
        run(["write", D, "f", "--offset", str(U + 5 * B)], random.Random(3).randbytes(B), kill=6)
    shutil.rmtree(D + "/oss-0"); os.makedirs(D + "/oss-0")
    s = run(["fail", D, "--oss", "0"])
    if b"LOST" not in s.stdout + s.stderr and not os.environ.get("NOLOST"):
        sys.exit("setup: no LOST record: " + (s.stdout + s.stderr).decode()[-300:])
    if os.environ.get("NOFLIP"):
        pass
    else:
        flip(1, 3 * B + 100)
    g = run(["read", D, "f", "--offset", str(U + 3 * B), "--length", str(B)])
    assert g.returncode != 0 or os.environ.get("NOFLIP"), "the rotten row must refuse before the write"
    p = run(["write", D, "f", "--offset", str(woff)], new, kill=k)
    if p.returncode != -9:
        counts["notkilled"] += 1
        if k == ks[-1] or p.returncode != 0:
            print("K=%d not killed rc %d %s" % (k, p.returncode, p.stderr.decode()[-200:]))
        continue
    # elements 0 and 1, block 3: file bytes [12K,16K) and [64K+12K, 64K+16K)
    for a in (3 * B, U + 3 * B):
        r = run(["read", D, "f", "--offset", str(a), "--length", str(B)])
        got = r.stdout
        o, n = old[a:a + B], new[a - woff:a - woff + B]
        if r.returncode != 0:
            counts["refused"] += 1
            continue
        if got == o or got == n:
            counts["ok"] += 1
            continue
        counts["wrong"] += 1
        print("K=%d WRONG at %d: exit 0, zeros=%s (neither old nor new; bytes equal old %d, new %d of %d); %s"
              % (k, a, got == bytes(B), sum(x == y for x, y in zip(got, o)), sum(x == y for x, y in zip(got, n)), B,
                 p.stderr.decode(errors="replace").strip()[-100:]), flush=True)
print("DONE", counts)
if not os.environ.get("REPRO_DIR"):
    shutil.rmtree(base, ignore_errors=True)
