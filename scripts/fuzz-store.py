#!/usr/bin/env python3
"""Differential fuzzer of `exaraid store` through the CLI (a review tool, not a CI test).

Random sequences of put/write/read/rm, fail/rebuild/online, delayed start/end, scrub --repair,
bit flips in OSS files and kill -9 of commands, on a small store (stripe unit 4096); after every
step `get` is compared with a model. Stops at the first divergence and prints the log.

Usage: scripts/fuzz-store.py CODE PATH SEED SEQUENCES STEPS
  CODE: raid5 raid6 rs evenodd rdp xcode dcode rs83 rs43 rs64 hcode hdp raid5k1 rs12 raid6k2 xcode3 hcode3 dcode3; PATH: rmw wcl delayed
  EXARAID=path/to/exaraid (default target/debug/exaraid). FUZZ_UNIT=65536 (stripe unit, default
  4096), FUZZ_EXTRA_OSS=N (odd seeds get N more OSSs than the width, default 1); CODE rs83 = rs 8+3. Scratch stores go to
  $EXARAID_FUZZ_DIR (default /tmp/r3f/). put and rm of a file with an open window must be refused.
Written by the session-2 reviewer; it found the open bugs F1-F4 listed in docs/store.md.
"""
import os, random, subprocess, sys, shutil, json
E = os.environ.get("EXARAID", "target/debug/exaraid")
SCRATCH = os.environ.get("EXARAID_FUZZ_DIR", "/tmp/r3f")
CODES = {
 "raid5": (["--code","raid5"], 4, 1),
 "raid6": (["--code","raid6"], 5, 2),
 "rs": (["--code","rs","--k","4","--m","2"], 6, 2),
 "evenodd": (["--code","evenodd","--p","3"], 5, 2),
 "rdp": (["--code","rdp","--p","3"], 4, 2),
 "xcode": (["--code","xcode","--p","5"], 5, 2),
 "dcode": (["--code","dcode","--p","5"], 5, 2),
 "rs83": (["--code","rs","--k","8","--m","3"], 11, 3),
 # review s8r: m = 3 and 4, and the two array codes the fuzzer never ran
 "rs43": (["--code","rs","--k","4","--m","3"], 7, 3),
 "rs64": (["--code","rs","--k","6","--m","4"], 10, 4),
 "hcode": (["--code","hcode","--p","5"], 6, 2),
 "hdp": (["--code","hdp","--p","5"], 4, 2),
 # review s11r: the narrowest geometries (k = 1 mirrors, k = 2, p = 3)
 "raid5k1": (["--code","raid5","--k","1"], 2, 1),
 "rs12": (["--code","rs","--k","1","--m","2"], 3, 2),
 "raid6k2": (["--code","raid6","--k","2"], 4, 2),
 "xcode3": (["--code","xcode","--p","3"], 3, 2),
 "hcode3": (["--code","hcode","--p","3"], 4, 2),
 "dcode3": (["--code","dcode","--p","3"], 3, 2),
}
LOG = []
def run(args, inp=b"", kill=None):
    cmd = [E, "store"] + args
    if kill is not None:
        cmd = ["timeout", "-s", "KILL", "%.3f" % kill] + cmd
    p = subprocess.run(cmd, input=inp, capture_output=True)
    LOG.append((args, len(inp), kill, p.returncode, p.stderr[-300:]))
    return p

class Div(Exception): pass

def fuzz(seed, code, path, steps, oss_extra):
    rng = random.Random(seed)
    d = "%s/%s-%s-%d" % (SCRATCH, code, path, seed)
    shutil.rmtree(d, ignore_errors=True)
    cargs, noss, tol = CODES[code]
    noss += oss_extra * int(os.environ.get("FUZZ_EXTRA_OSS", "1"))
    unit = os.environ.get("FUZZ_UNIT", "4096")
    # FUZZ_INIT_ARGS: more init options, e.g. "--window-timeout-ms 50 --unprotected-max-bytes 20000" (review s11r)
    extra = os.environ.get("FUZZ_INIT_ARGS", "").split()
    p = run(["init", d, "--oss", str(noss), "--stripe-unit", unit, "--write-path", path] + cargs + extra)
    if p.returncode: raise Div("init failed %s" % p.stderr)
    model = {}
    failed = set()
    windows = {}  # name -> token
    unknown_w = [False]
    tainted = False  # flips/losses: errors are acceptable
    lossy = False
    names = ["a", "b", "c"]
    for step in range(steps):
        op = rng.choices(["put","write","read","rm","fail","rebuild","online","dstart","dend","scrub","flip","kill","killother"],
                         [5,30,8,2,3,3,1,(6 if path=="delayed" else 0),(5 if path=="delayed" else 0),2,(3),4,4])[0]
        n = rng.choice(names)
        if op == "put":
            data = os.urandom(rng.choice([0, rng.randrange(1,70000)]))
            p = run(["put", d, n], data)
            if n in windows:
                # A put would drop the window under its writer: refused, nothing changed.
                if p.returncode == 0 or b"open delayed window" not in p.stderr:
                    raise Div("put over an open window not refused: rc %d %s" % (p.returncode, p.stderr))
            elif p.returncode == 0: model[n] = bytearray(data)
            elif not tainted: raise Div("put failed %s" % p.stderr)
        elif op in ("write", "kill"):
            cur = model.get(n, bytearray())
            off = rng.randrange(0, len(cur)+9000)
            ln = rng.randrange(1, 30000)
            data = os.urandom(ln)
            if op == "kill":
                p = run(["write", d, n, "--offset", str(off)], data, kill=rng.uniform(0.005, 0.12))
                if p.returncode == 0:
                    pass
                else:
                    # unacknowledged: accept old or new bytes per byte in range; check now
                    g = run(["get", d, n])
                    if g.returncode:
                        if tainted: return ("err-after-kill", step)
                        # (F2, a degraded write's write hole, is fixed: a loss here is a bug.)
                        if b"no file named" in g.stderr and n not in model: continue  # killed before its Create
                        raise Div("get after killed write failed %s" % g.stderr)
                    new = bytearray(cur)
                    if len(new) < off+ln: new.extend(b"\0"*(off+ln-len(new)))
                    new[off:off+ln] = data
                    act = g.stdout
                    if len(act) not in (len(cur), len(new)) and not (n not in model and len(act)==0):
                        raise Div("killed write: size %d not old %d/new %d" % (len(act), len(cur), len(new)))
                    for i in range(len(act)):
                        o = cur[i] if i < len(cur) else 0
                        if act[i] != o and act[i] != new[i]:
                            raise Div("killed write: byte %d is %d, old %d new %d (off %d len %d)" % (i, act[i], o, new[i], off, ln))
                    model[n] = bytearray(act)
                    continue
            else:
                p = run(["write", d, n, "--offset", str(off)], data)
            if p.returncode == 0:
                if len(cur) < off+ln: cur.extend(b"\0"*(off+ln-len(cur)))
                cur[off:off+ln] = data
                model[n] = cur
            elif failed and windows and b"would go to a failed OSS" in p.stderr: pass
            elif p.returncode != 0:
                g = run(["get", d, n])
                if g.returncode == 0 and g.stdout != bytes(cur):
                    act = g.stdout
                    new = bytearray(cur)
                    if len(new) < off+ln: new.extend(b"\0"*(off+ln-len(new)))
                    new[off:off+ln] = data
                    nn = sum(1 for i in range(min(len(act),len(new))) if act[i] == new[i] and (i >= len(cur) or cur[i] != new[i]))
                    other = sum(1 for i in range(min(len(act),len(new))) if act[i] != new[i] and act[i] != (cur[i] if i < len(cur) else 0))
                    if other == 0 and len(act) in (len(cur), len(new)):
                        print("NOTE failed write applied", code, path, seed, p.stderr[:100], flush=True)
                        model[n] = bytearray(act); continue
                    raise Div("FAILED write (exit %d: %s) changed bytes: len %d old %d; bytes equal new data: %d; bytes neither old nor new: %d" % (p.returncode, p.stderr[:120], len(act), len(cur), nn, other))
            elif not (tainted or lossy): raise Div("write failed %s" % p.stderr)
            elif b"panick" in p.stderr: raise Div("panic %s" % p.stderr)
        elif op == "read":
            if n not in model or len(model[n]) == 0: continue
            cur = model[n]
            off = rng.randrange(0, len(cur)); ln = rng.randrange(1, len(cur)-off+1)
            p = run(["read", d, n, "--offset", str(off), "--length", str(ln)])
            if p.returncode == 0:
                exp = bytes(cur[off:off+ln])
                if p.stdout != exp:
                    raise Div("read %s off %d len %d: got %d bytes differing from model %d" % (n, off, ln, len(p.stdout), len(exp)))
            elif not (tainted or lossy): raise Div("read failed %s" % p.stderr)
        elif op == "rm":
            p = run(["rm", d, n])
            if n in windows:
                if p.returncode == 0 or b"open delayed window" not in p.stderr:
                    raise Div("rm over an open window not refused: rc %d %s" % (p.returncode, p.stderr))
            elif p.returncode == 0: model.pop(n, None)
        elif op == "fail":
            if len(failed) >= tol: continue
            i = rng.randrange(noss)
            p = run(["fail", d, "--oss", str(i)])
            if p.returncode == 0:
                failed.add(i)
                if windows or unknown_w[0]: lossy = True
        elif op == "rebuild":
            if not failed: continue
            i = rng.choice(sorted(failed))
            p = run(["rebuild", d, "--oss", str(i)])
            if p.returncode == 0: failed.discard(i)
            elif not tainted: raise Div("rebuild failed %s" % p.stderr)
        elif op == "online":
            if not failed: continue
            i = rng.choice(sorted(failed))
            p = run(["online", d, "--oss", str(i)])
            if p.returncode == 0: failed.discard(i)
        elif op == "dstart":
            if n in windows: continue
            p = run(["delayed", "start", d, n])
            if p.returncode == 0:
                windows[n] = p.stdout.decode().strip()
                # START on a missing name creates it empty (review s5r R6): model it
                if n not in model: model[n] = bytearray()
        elif op == "dend":
            if n not in windows: continue
            p = run(["delayed", "end", d, windows.pop(n)])
            if p.returncode and not lossy: raise Div("end failed %s" % p.stderr)
        elif op == "killother":
            what = rng.choice(["put","rm","rebuild","scrub","dend"])
            kt = rng.uniform(0.003, 0.08)
            if what == "put":
                data = os.urandom(rng.randrange(1,70000))
                p = run(["put", d, n], data, kill=kt)
                g = run(["get", d, n])
                if g.returncode == 0:
                    if g.stdout == data: model[n] = bytearray(data); windows.pop(n, None)
                    elif n in model and g.stdout == bytes(model[n]): pass
                    else: raise Div("killed put: %s neither old nor new (len %d)" % (n, len(g.stdout)))
                elif b"no file named" in g.stderr and n not in model: pass
                elif tainted or lossy: return ("err-accepted", step, g.stderr[-200:])
                else: raise Div("get after killed put failed %s" % g.stderr)
            elif what == "rm":
                p = run(["rm", d, n], kill=kt)
                g = run(["get", d, n])
                if g.returncode != 0 and b"no file named" in g.stderr: model.pop(n, None); windows.pop(n, None)
            elif what == "rebuild":
                if not failed: continue
                i = rng.choice(sorted(failed))
                p = run(["rebuild", d, "--oss", str(i)], kill=kt)
                if p.returncode == 0: failed.discard(i)
                else:
                    # Killed: it may have finished first (or the next open finishes it).
                    st = run(["status", d, "--json"])
                    if st.returncode == 0 and json.loads(st.stdout)["oss"][i]["healthy"]: failed.discard(i)
            elif what == "scrub":
                p = run(["scrub", d, "--repair"], kill=kt)
            elif what == "dend":
                if n not in windows: continue
                p = run(["delayed", "end", d, windows.pop(n)], kill=kt)
                if p.returncode != 0: unknown_w[0] = True
        elif op == "scrub":
            p = run(["scrub", d, "--repair"])
        elif op == "flip":
            if failed: continue
            objs = []
            for k in range(noss):
                od = "%s/oss-%d/objects" % (d, k)
                if os.path.isdir(od):
                    objs += [os.path.join(od, f) for f in os.listdir(od)]
            objs = [o for o in objs if os.path.getsize(o) > 0]
            if not objs: continue
            o = rng.choice(objs); sz = os.path.getsize(o)
            pos = rng.randrange(sz)
            with open(o, "r+b") as f:
                f.seek(pos); b = f.read(1); f.seek(pos); f.write(bytes([b[0] ^ (1 << rng.randrange(8))]))
            LOG.append((["FLIP", o, pos], 0, None, 0, b""))
            tainted = True
        # after each step compare every file
        for nm, cur in list(model.items()):
            g = run(["get", d, nm])
            if g.returncode == 0:
                if g.stdout != bytes(cur):
                    diff = [i for i in range(min(len(cur), len(g.stdout))) if cur[i] != g.stdout[i]]
                    raise Div("get %s: len %d vs model %d, %d differing bytes first %s" % (nm, len(g.stdout), len(cur), len(diff), diff[:3]))
            else:
                if tainted or lossy:
                    return ("err-accepted", step, g.stderr[-200:])
                raise Div("get %s failed: %s" % (nm, g.stderr))
        if tainted and rng.random() < 0.3:
            run(["scrub", d, "--repair"]); tainted = False  # single flips within tolerance must be repaired
    shutil.rmtree(d, ignore_errors=True)
    return ("ok", steps)

if __name__ == "__main__":
    code, path, seed0, nseq, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    ok = 0; tot = 0
    for s in range(seed0, seed0+nseq):
        LOG.clear()
        try:
            r = fuzz(s, code, path, steps, s % 2)
            ok += 1; tot += r[1]
            print("seed", s, r, flush=True)
        except Div as e:
            print("DIVERGENCE", code, path, "seed", s, e, flush=True)
            for l in LOG: 
                if l[0][0] != "get": print("   ", l, flush=True)
            sys.exit(1)
    print("DONE", code, path, "seqs", ok, "steps", tot)
