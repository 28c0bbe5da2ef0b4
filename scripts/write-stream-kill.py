#!/usr/bin/env python3
"""Review tool (engineer s5s, not CI): brief item 5, `store write` streams stdin in 8 MiB
pieces (Store::write_from). A file of OLD bytes gets NEW bytes (several pieces) written at an
unaligned offset by one `store write`, killed -9 at durable call K (killshim) or, EIO=1, failed
once with EIO at call K (eioshim). Checks: the file is old up to the offset, then NEW for a
prefix, then at most one piece (8 MiB) of bytes each old or new, then OLD to the end (nothing
after the cut piece written); with EIO the error must name the durable end D and bytes before D
must be new, bytes from D + 8 MiB on old. Then scrub clean.
Usage: write-stream-kill.py PATH POINTS [seed]   Env: EXARAID, SHIM, EIOSHIM, MB (new bytes,
default 26), S5S_DIR (default /tmp/s5s-ws). Prints problems and a DONE line."""
import os, random, re, shutil, subprocess, sys
E = os.environ.get("EXARAID", "/work/target-s5r/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s5s-killshim.so")
EIOSHIM = os.environ.get("EIOSHIM", "/tmp/s5s-eioshim.so")
ROOT = os.environ.get("S5S_DIR", "/tmp/s5s-ws")
PATH, POINTS = sys.argv[1], int(sys.argv[2]); seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
EIO = os.environ.get("EIO")
PIECE = 8 << 20
r = random.Random(seed)
MB = int(os.environ.get("MB", "26"))
old = r.randbytes((MB + 4) << 20)
new = r.randbytes(MB << 20)
off = 1234567
d = ROOT + "/s"


def run(a, inp=b"", env=None):
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)


def fresh():
    shutil.rmtree(ROOT, ignore_errors=True)
    assert run(["init", d, "--oss", "6", "--code", "raid6", "--stripe-unit", "65536", "--write-path", PATH]).returncode == 0
    assert run(["put", d, "f"], old).returncode == 0


fresh()
env = dict(os.environ, LD_PRELOAD=SHIM, KILLN="0", KILLCOUNT_FILE=ROOT + "-count")
p = run(["write", d, "f", "--offset", str(off)], new, env)
total = int(open(ROOT + "-count").read().split()[0])
exp_all = old[:off] + new + old[off + len(new):]
problems = 0
ks = sorted(set(r.randrange(1, total + 1) for _ in range(POINTS)))
for k in ks:
    fresh()
    if EIO:
        env = dict(os.environ, LD_PRELOAD=EIOSHIM, FAILN=str(k), FAILSTICKY="0")
    else:
        env = dict(os.environ, LD_PRELOAD=SHIM, KILLN=str(k), KILLTEAR=str(r.randrange(2)))
    p = run(["write", d, "f", "--offset", str(off)], new, env)
    err = p.stderr.decode(errors="replace")
    g = run(["get", d, "f"])
    msg = []
    if g.returncode != 0:
        msg.append("get rc %d: %s" % (g.returncode, g.stderr.decode(errors="replace")[-300:]))
    else:
        a = g.stdout
        if len(a) != len(old):
            msg.append("length %d, expected %d" % (len(a), len(old)))
        else:
            if a[:off] != old[:off] or a[off + len(new):] != old[off + len(new):]:
                msg.append("bytes outside the write changed")
            # first byte not new, last byte not old (within the write's range)
            seg = a[off:off + len(new)]
            first_not_new = next((i for i in range(0, len(new), 4096) if seg[i:i + 4096] != new[i:i + 4096]), len(new))
            last_not_old = next((i for i in range((len(new) - 1) // 4096 * 4096, -1, -4096) if seg[i:i + 4096] != old[off + i:off + i + 4096]), -1)
            if p.returncode == 0 and seg != new:
                msg.append("exit 0 but not all new")
            if last_not_old - first_not_new > PIECE + 4096:
                msg.append("more than one piece mixed: first non-new block at +%d, last non-old block at +%d" % (first_not_new, last_not_old))
            m = re.search(r"the first (\d+) bytes of the input are written", err)
            if p.returncode not in (0, -9):
                if m:
                    dur = int(m.group(1))
                    if seg[:dur] != new[:dur]:
                        msg.append("error names %d bytes durable but byte +%d is not new" % (dur, first_not_new))
                    if last_not_old >= dur + PIECE:
                        msg.append("error names %d durable; bytes past the next piece written (+%d)" % (dur, last_not_old))
                elif first_not_new > 0 and first_not_new < len(new) and "first" not in err:
                    pass  # nothing acknowledged: error as `write` gives it
    s = run(["scrub", d])
    if s.returncode != 0:
        msg.append("scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-200:]))
    if msg:
        problems += 1
        print("K=%d rc %d (%s): %s" % (k, p.returncode, err.strip()[-250:], "; ".join(msg)), flush=True)
print("DONE write-stream %s %s: %d kill points of %d calls, %d with problems" % (PATH, "EIO" if EIO else "kill", len(ks), total, problems))
shutil.rmtree(ROOT, ignore_errors=True)
