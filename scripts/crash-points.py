#!/usr/bin/env python3
"""Review tool (engineer d): kill one store command at its N-th pwrite64 (or fdatasync)
with strace fault injection, for N = 1.. until it finishes, then check acknowledged bytes,
scrub and degraded reads. Usage: crash-points.py SCENARIO CODE [SYSCALL]
Scratch: $EXARAID_SCRATCH/cp-* (default /tmp/exaraid-review). EXARAID=path to the binary."""
import os, subprocess, sys, shutil, random
E = os.environ.get("EXARAID", "/work/target-d/debug/exaraid")
CODES = {
 "raid5": (["--code","raid5"], 4, 1), "raid6": (["--code","raid6"], 5, 2),
 "rs": (["--code","rs","--k","4","--m","2"], 6, 2),
 "evenodd": (["--code","evenodd","--p","5"], 7, 2), "rdp": (["--code","rdp","--p","5"], 6, 2),
 "xcode": (["--code","xcode","--p","5"], 5, 2), "dcode": (["--code","dcode","--p","5"], 5, 2),
 "hdp": (["--code","hdp","--p","5"], 4, 2), "hcode": (["--code","hcode","--p","5"], 6, 2),
}
def run(args, inp=b"", kill_n=None, sysc="pwrite64"):
    cmd = [E, "store"] + args
    env = dict(os.environ)
    if kill_n is not None:
        env["LD_PRELOAD"] = os.environ.get("SHIM", "/tmp/exaraid-killshim.so"); env["KILLN"] = str(kill_n)
        env["KILLTEAR"] = "1" if sysc == "tear" else "0"
    return subprocess.run(cmd, input=inp, capture_output=True, env=env)

def rnd(seed, n):
    return random.Random(seed).randbytes(n)

def check(d, files, noss, tol, label):
    bad = []
    for nm, (acc) in files.items():
        g = run(["get", d, nm])
        if g.returncode != 0:
            bad.append("%s: get %s failed rc %d: %s" % (label, nm, g.returncode, g.stderr[-300:].decode(errors="replace"))); continue
        if isinstance(acc, tuple):  # ("mix", old, new): every byte old or new (unacked write)
            _, old, new = acc; act = g.stdout
            okl = len(act) in (len(old), len(new))
            badb = [i for i in range(min(len(act), len(new))) if act[i] != new[i] and act[i] != (old[i] if i < len(old) else 0)]
            if not okl or badb:
                bad.append("%s: get %s bytes neither old nor new: len %d (old %d new %d) first bad %s count %d" % (label, nm, len(act), len(old), len(new), badb[:3], len(badb)))
            continue
        if not any(g.stdout == a for a in acc):
            lens = [len(a) for a in acc]
            diff = None
            for a in acc:
                if len(a) == len(g.stdout):
                    diff = [i for i in range(len(a)) if a[i] != g.stdout[i]]
            bad.append("%s: get %s wrong bytes (len %d, allowed lens %s, diff %s)" % (label, nm, len(g.stdout), lens, (len(diff), diff[:2], diff[-1:]) if diff else None))
    if os.environ.get("FLIP"):
        rp = run(["scrub", d, "--repair"])
        if rp.returncode not in (0, 2): bad.append("%s: scrub --repair rc %d: %s" % (label, rp.returncode, rp.stderr[-300:]))
    s = run(["scrub", d])
    if s.returncode != 0:
        bad.append("%s: scrub rc %d: %s" % (label, s.returncode, (s.stdout[-300:] + s.stderr[-300:]).decode(errors="replace")))
    return bad

FINISH = []
def scenario(name, code, seed):
    """returns (d, setup(d) -> files allowed after, command args, input, post)"""
    cargs, noss, tol = CODES[code]
    d = os.path.join(os.environ.get("EXARAID_SCRATCH", "/tmp/exaraid-review"), "cp-%s-%s" % (name, code))
    shutil.rmtree(d, ignore_errors=True)
    base = rnd(seed, int(os.environ.get("BASE", "50000")))
    if name in ("end", "timeout", "rmwin", "advance", "putwin"):
        extra = ["--window-timeout-ms", "30"] if name == "timeout" else []
        if name == "advance": extra = ["--unprotected-max-bytes", "20000"]
        run(["init", d, "--oss", str(noss), "--stripe-unit", "4096", "--write-path", "delayed"] + cargs + extra)
        run(["put", d, "f"], base); run(["put", d, "g"], rnd(seed+1, 30000))
        tok = run(["delayed", "start", d, "f"]).stdout.decode().strip()
        w1 = rnd(seed+2, 15000); run(["write", d, "f", "--offset", "7000"], w1)
        w2 = rnd(seed+3, 9000); run(["write", d, "f", "--offset", "40000"], w2)
        exp = bytearray(base); exp[7000:22000] = w1; exp[40000:49000] = w2
        files = {"f": [bytes(exp)], "g": [rnd(seed+1, 30000)]}
        if name == "end": return d, files, ["delayed", "end", d, tok], b"", noss, tol
        if name == "timeout":
            import time; time.sleep(0.05)
            return d, files, ["ls", d], b"", noss, tol
        if name == "rmwin":
            files["f"] = [bytes(exp), None]
            return d, files, ["rm", d, "f"], b"", noss, tol
        if name == "putwin":
            nb = rnd(seed+9, 33000); files["f"] = [bytes(exp), nb]
            return d, files, ["put", d, "f"], nb, noss, tol
        if name == "advance":
            w3 = rnd(seed+4, 12000); new = bytearray(exp); new[20000:32000] = w3
            files["f"] = [bytes(exp), bytes(new)]
            return d, files, ["write", d, "f", "--offset", "20000"], w3, noss, tol
    if name == "winwkill":
        run(["init", d, "--oss", str(noss), "--stripe-unit", "4096", "--write-path", "delayed"] + cargs)
        run(["put", d, "f"], base); run(["put", d, "g"], rnd(seed+1, 30000))
        tok = run(["delayed", "start", d, "f"]).stdout.decode().strip()
        exp = bytearray(base); r = random.Random(seed)
        for i in range(4):
            off = r.randrange(0, len(base) - 5000); ln = r.randrange(1, 9000); w = rnd(seed+10+i, ln)
            run(["write", d, "f", "--offset", str(off)], w)
            if len(exp) < off+ln: exp.extend(b"\0"*(off+ln-len(exp)))
            exp[off:off+ln] = w
        off = r.randrange(0, len(base)); ln = r.randrange(1, 20000); w = rnd(seed+30, ln)
        new = bytearray(exp)
        if len(new) < off+ln: new.extend(b"\0"*(off+ln-len(new)))
        new[off:off+ln] = w
        files = {"f": ("mix", bytes(exp), bytes(new)), "g": [rnd(seed+1, 30000)]}
        FINISH[:] = [["delayed", "end", d, tok]]
        return d, files, ["write", d, "f", "--offset", str(off)], w, noss, tol
    if name == "wcldeg":  # F2's case on the WCL path: a killed write with one OSS failed
        run(["init", d, "--oss", str(noss), "--stripe-unit", "4096", "--write-path", "wcl"] + cargs)
        run(["put", d, "f"], base); run(["put", d, "g"], rnd(seed+1, 30000))
        run(["fail", d, "--oss", os.environ.get("FAILOSS", "0")])
        exp = bytearray(base); r = random.Random(seed)
        for i in range(5):
            off = r.randrange(0, len(base) - 5000); ln = r.randrange(1, 9000); w = rnd(seed+10+i, ln)
            p = run(["write", d, "f", "--offset", str(off)], w); assert p.returncode == 0, p.stderr
            if len(exp) < off+ln: exp.extend(b"\0"*(off+ln-len(exp)))
            exp[off:off+ln] = w
        off = r.randrange(0, len(base)); ln = r.randrange(1, 20000); w = rnd(seed+30, ln)
        new = bytearray(exp)
        if len(new) < off+ln: new.extend(b"\0"*(off+ln-len(new)))
        new[off:off+ln] = w
        files = {"f": ("mix", bytes(exp), bytes(new)), "g": [rnd(seed+1, 30000)]}
        return d, files, ["write", d, "f", "--offset", str(off)], w, noss, tol - 1
    if name in ("wclw", "wcld"):
        run(["init", d, "--oss", str(noss), "--stripe-unit", "4096", "--write-path", "wcl"] + cargs)
        run(["put", d, "f"], base); run(["put", d, "g"], rnd(seed+1, 30000))
        exp = bytearray(base)
        r = random.Random(seed)
        for i in range(6):
            off = r.randrange(0, len(base) - 5000); ln = r.randrange(1, 5000); w = rnd(seed+10+i, ln)
            run(["write", d, "f", "--offset", str(off)], w); exp[off:off+ln] = w
        files = {"f": [bytes(exp)], "g": [rnd(seed+1, 30000)]}
        off = r.randrange(0, len(base)); ln = r.randrange(1, 9000); w = rnd(seed+30, ln)
        new = bytearray(exp)
        if len(new) < off+ln: new.extend(b"\0"*(off+ln-len(new)))
        new[off:off+ln] = w
        if name == "wclw":
            files["f"] = [bytes(exp), bytes(new)]
            return d, files, ["write", d, "f", "--offset", str(off)], w, noss, tol
        return d, files, ["scrub", d, "--repair"], b"", noss, tol  # wcld: a command that flushes? scrub
    if name in ("rebuildto", "rebuildin", "wclrebuild"):
        wp = "wcl" if name == "wclrebuild" else "rmw"
        run(["init", d, "--oss", str(noss), "--stripe-unit", "4096", "--write-path", wp] + cargs)
        run(["put", d, "f"], base); run(["put", d, "g"], rnd(seed+1, 30000))
        run(["fail", d, "--oss", "1"])
        exp = bytearray(base); r = random.Random(seed)
        for i in range(5):
            off = r.randrange(0, len(base) - 5000); ln = r.randrange(1, 5000); w = rnd(seed+10+i, ln)
            p = run(["write", d, "f", "--offset", str(off)], w); exp[off:off+ln] = w
            assert p.returncode == 0, p.stderr
        files = {"f": [bytes(exp)], "g": [rnd(seed+1, 30000)]}
        cmd = ["rebuild", d, "--oss", "1"] + (["--to", d + "/new1"] if name == "rebuildto" else [])
        FINISH[:] = [cmd]
        return d, files, cmd, b"", noss, tol
    if name == "scrubrep":
        run(["init", d, "--oss", str(noss), "--stripe-unit", "4096"] + cargs)
        run(["put", d, "f"], base)
        objs = sorted(os.path.join(d, "oss-%d/objects" % k, f) for k in range(noss) for f in os.listdir(os.path.join(d, "oss-%d/objects" % k)) if os.path.getsize(os.path.join(d, "oss-%d/objects" % k, f)) > 0)
        o = objs[seed % len(objs)]
        with open(o, "r+b") as fh:
            fh.seek(100); b = fh.read(1); fh.seek(100); fh.write(bytes([b[0] ^ 1]))
        return d, {"f": [base]}, ["scrub", d, "--repair"], b"", noss, tol
    raise SystemExit("unknown scenario " + name)

def main():
    name, code = sys.argv[1], sys.argv[2]
    sysc = sys.argv[3] if len(sys.argv) > 3 else "pwrite64"
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    n = int(os.environ.get('MINN', '1')); problems = 0
    while n < int(os.environ.get('MAXN', '2000')):
        d, files, cmd, inp, noss, tol = scenario(name, code, seed)
        p = run(cmd, inp, kill_n=n, sysc=sysc)
        killed = p.returncode in (-9, 137) or p.returncode == 128 + 9
        if os.environ.get("KEEP"): print("killed command:", cmd, "input", len(inp), "bytes:", p.stderr.decode(errors="replace").strip()[-300:])
        if not killed and p.returncode != 0:
            print("n=%d command failed rc %d: %s" % (n, p.returncode, p.stderr[-300:])); problems += 1
        if not killed:
            # finished: the command's effect is acknowledged
            if name == "rmwin": files["f"] = [None]
            if name in ("putwin", "advance", "wclw") and p.returncode == 0: files["f"] = [files["f"][-1]]
            if name in ("winwkill", "wcldeg") and p.returncode == 0: files["f"] = [files["f"][2]]
        flip = os.environ.get("FLIP")
        if flip and killed:
            r = random.Random(n * 1000 + seed)
            objs = [os.path.join(d, "oss-%d/objects" % k, f) for k in range(noss)
                    for f in sorted(os.listdir(os.path.join(d, "oss-%d/objects" % k)))]
            objs = [o for o in objs if os.path.getsize(o) > 0 and (flip == "any" or o.endswith("." + flip))]
            if objs:
                o = r.choice(objs); pos = r.randrange(os.path.getsize(o))
                with open(o, "r+b") as fh:
                    fh.seek(pos); b = fh.read(1); fh.seek(pos); fh.write(bytes([b[0] ^ (1 << r.randrange(8))]))
                flipped = (o, pos)
                if os.environ.get("KEEP"): print("flipped", flipped)
        if killed:
            for fc in FINISH:
                q = run(fc)
                if q.returncode and b"nothing to rebuild" not in q.stderr: print("n=%d finishing %s failed rc %d: %s" % (n, fc[0], q.returncode, q.stderr[-300:]), flush=True); problems += 1
        FINISH[:] = []
        fl = {k: (v if isinstance(v, tuple) else [a for a in v if a is not None]) for k, v in files.items()}
        gone_ok = {k for k, v in files.items() if not isinstance(v, tuple) and None in v}
        for k in list(fl):
            if not fl[k]:
                g = run(["get", d, k]); fl.pop(k)
                if g.returncode == 0: print("n=%d %s should be removed but reads" % (n, k)); problems += 1
        for k in gone_ok & set(fl):
            g = run(["get", d, k])
            if g.returncode != 0 and b"no file named" in g.stderr: fl.pop(k)
        bad = check(d, fl, noss, tol, "n=%d%s" % (n, " killed" if killed else " done"))
        if not bad and name in ("end", "timeout", "advance"):
            # a late/second END must not hurt
            pass
        import json
        st = run(["status", d, "--json"])
        try:
            for w in json.loads(st.stdout).get("open_windows", []):
                e = run(["delayed", "end", d, w["token"]])
                if e.returncode: bad.append("n=%d END after kill failed: %s" % (n, e.stderr[-200:]))
        except ValueError:
            bad.append("n=%d status --json failed %s" % (n, st.stderr[-200:]))
        if not bad: bad += check(d, fl, noss, tol, "n=%d after END" % n)
        for k in range(noss if not bad else 0):
            run(["fail", d, "--oss", str(k)])
            b2 = [x for x in check(d, fl, noss, tol, "n=%d fail %d" % (n, k)) if "scrub" not in x]
            bad += b2
            run(["online", d, "--oss", str(k)])
        if bad and flip and killed: print("   (flipped %s)" % (flipped,))
        for b in bad: print(b, flush=True)
        problems += len(bad)
        if not killed or os.environ.get("KEEP"): break
        n += 1
    print("DONE", name, code, sysc, "points", n, "problems", problems, flush=True)
    if not os.environ.get("KEEP"): shutil.rmtree(d, ignore_errors=True)
main()
