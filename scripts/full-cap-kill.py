#!/usr/bin/env python3
"""Review tool (engineer s6s, not CI; brief item 4, s6f): a store with a small --oss-capacity
(no mounts needed) is filled by puts until one is refused, with cached writes into f0 (WCL /
delayed) and, for delayed, an open window over f1. Then each command below is killed -9 at
every one of its durable calls (the store restored from a snapshot at the same path between
kills; the superblock names the OSS directories by absolute path):
  putover  put f2 with new bytes of f2's size + 1 stripe unit (settles the old file's cached
           bytes first; may be refused: full)
  putnew   put of a new name `nn` twice the capacity (refused: the name must not stay)
  writenew write of a new name `nw` of half the capacity (refused or not)
  writeover write past the end of f1 (the unprotected bound / parity advance on delayed)
  rm       rm f0 (a settle on the full store)
After each kill: `ls` exits 0 (the store opens), every file other than the command's target
reads exactly, the target reads old or new (absent allowed for a new name / rm), a rerun of the
same command does not panic, `scrub` exit code is recorded (problems: 2 = corrupt).
Usage: full-cap-kill.py CODE WPATH UNIT CAPACITY [cmd,cmd..]
Env: EXARAID, SHIM (killshim .so), S6S_DIR (scratch, default /tmp/s6s-fck), SEED (default 5),
POINTS (kill points spread evenly over the command's durable calls, default 40).
Prints one line per kill point with a problem and a DONE line per command."""
import os, random, shutil, subprocess, sys

E = os.environ.get("EXARAID", "/work/target-s6s/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s6s-killshim.so")
ROOT = os.environ.get("S6S_DIR", "/tmp/s6s-fck")
code, wpath, unit, cap = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
cmds = (sys.argv[5] if len(sys.argv) > 5 else "putover,putnew,writenew,writeover,rm").split(",")
r = random.Random(int(os.environ.get("SEED", "5")))
D, SNAP = ROOT + "/s", ROOT + "/snap"


def run(a, inp=b"", kill=None, count=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if kill is not None or count:
        env.update(LD_PRELOAD=SHIM, KILLN=str(kill or 0), KILLTEAR="0")
        if count:
            env["KILLCOUNT_FILE"] = count
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=env)


def code_args():
    p = code.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[1]) + int(p[2])
    if p[0] in ("raid5", "raid6"):
        return ["--code", p[0]], int(p[1]) if len(p) > 1 else 6
    return ["--code", p[0], "--p", p[1] if len(p) > 1 else "5"], 7


def setup():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    cargs, noss = code_args()
    p = run(["init", D, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", wpath,
             "--oss-capacity", str(cap)] + cargs)
    assert p.returncode == 0, p.stderr
    files, tok = {}, None
    for i in range(64):
        b = r.randbytes(r.randrange(unit, unit * 12))
        p = run(["put", D, "f%d" % i], b)
        if p.returncode != 0:
            break
        files["f%d" % i] = b
        if i == 1 and wpath == "delayed":
            t = run(["delayed", "start", D, "f1"])
            tok = t.stdout.decode().strip() if t.returncode == 0 else None
        if i == 0 and wpath != "rmw":
            for j in range(3):
                off = r.randrange(0, len(b))
                w = r.randbytes(r.randrange(1, unit))
                if run(["write", D, "f0", "--offset", str(off)], w).returncode == 0:
                    x = bytearray(files["f0"])
                    x.extend(b"\0" * max(0, off + len(w) - len(x)))
                    x[off:off + len(w)] = w
                    files["f0"] = bytes(x)
    assert len(files) >= 3, "capacity too small: %d files" % len(files)
    shutil.copytree(D, SNAP, symlinks=True)
    return files, tok


def restore():
    shutil.rmtree(D)
    shutil.copytree(SNAP, D, symlinks=True)


def command(name, files):
    """(args, stdin, target name, acceptable contents of the target: None = absent)"""
    if name == "putover":
        nb = r.randbytes(len(files["f2"]) + unit)
        return ["put", D, "f2"], nb, "f2", [files["f2"], nb]
    if name == "putnew":
        nb = r.randbytes(2 * cap)
        return ["put", D, "nn"], nb, "nn", [None, nb]
    if name == "writenew":
        nb = r.randbytes(cap // 2)
        return ["write", D, "nw", "--offset", "0"], nb, "nw", [None, nb]
    if name == "writeover":
        f = files["f1"]
        w = r.randbytes(3 * unit)
        off = len(f) + 100
        new = f + b"\0" * 100 + w
        return ["write", D, "f1", "--offset", str(off)], w, "f1", [f, new]
    if name == "rm":
        return ["rm", D, "f0"], b"", "f0", [None, files["f0"]]
    raise SystemExit("unknown command " + name)


def mix_ok(got, accept):
    """exact old or new, or bytewise either (a cut write of one range)"""
    if got in accept:
        return True
    a = [x for x in accept if x is not None]
    if len(a) != 2 or len(got) not in (len(a[0]), len(a[1])):
        return False
    o, n = a
    for i in range(len(got)):
        if got[i] != (o[i] if i < len(o) else 0) and got[i] != (n[i] if i < len(n) else 0):
            return False
    return True


def check(files, target, accept):
    bad = []
    ls = run(["ls", D])
    if ls.returncode != 0:
        return ["ls rc %d: %s" % (ls.returncode, ls.stderr.decode(errors="replace")[-200:])]
    names = {l.split()[0] for l in ls.stdout.decode().splitlines() if l.strip()}
    for n, b in files.items():
        if n == target:
            continue
        g = run(["get", D, n])
        if g.returncode != 0:
            bad.append("get %s rc %d: %s" % (n, g.returncode, g.stderr.decode(errors="replace")[-200:]))
        elif g.stdout != b:
            bad.append("WRONG %s (exit 0)" % n)
    g = run(["get", D, target])
    got = g.stdout if g.returncode == 0 else None
    if g.returncode != 0 and None not in accept:
        bad.append("target %s get rc %d: %s" % (target, g.returncode, g.stderr.decode(errors="replace")[-200:]))
    elif got is not None and not mix_ok(got, accept):
        bad.append("WRONG target %s (exit 0, %d bytes)" % (target, len(got)))
    if got is None and None in accept and target in names:
        bad.append("target %s listed by ls but get rc %d" % (target, g.returncode))
    return bad


files, tok = setup()
print("setup: %d files, capacity %d, window %s" % (len(files), cap, tok), flush=True)
for name in cmds:
    args, inp, target, accept = command(name, files)
    restore()
    cf = ROOT + "/count"
    p = run(args, inp, count=cf)
    n = int(open(cf).read().split()[-1]) if os.path.exists(cf) else 0
    unkilled_rc = p.returncode
    after = check(files, target, accept)
    if after:
        print("%s unkilled rc %d: %s" % (name, unkilled_rc, after[:2]), flush=True)
    probs = 0
    points = sorted(set(range(1, n + 1, max(1, n // int(os.environ.get("POINTS", "40"))))) | {n})
    for k in points:
        restore()
        p = run(args, inp, kill=k)
        if p.returncode != -9:
            continue
        where = p.stderr.decode(errors="replace").strip().splitlines()[-1][-90:] if p.stderr else ""
        bad = check(files, target, accept)
        rerun = run(args, inp)
        if b"panicked" in rerun.stderr:
            bad.append("rerun PANIC: " + rerun.stderr.decode(errors="replace")[-200:])
        s = run(["scrub", D])
        if s.returncode not in (0,) and not (s.returncode == 2 and b"FAILED" in s.stdout):
            bad.append("scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-200:]))
        if bad:
            probs += 1
            print("%s K=%d (%s): %s" % (name, k, where, bad[:3]), flush=True)
    print("DONE %s %s %s unit=%d cap=%d: %d durable calls (unkilled rc %d), %d with problems"
          % (name, code, wpath, unit, cap, n, unkilled_rc, probs), flush=True)
shutil.rmtree(ROOT, ignore_errors=True)
