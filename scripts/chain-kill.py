#!/usr/bin/env python3
"""Review tool (engineer s5r, not CI): several CLI processes in a row killed with kill -9
(killshim at a random durable call, torn or not), each one opening the store the previous
one left half done (so recovery itself is killed, again and again), with an OSS failed first
and `rebuild --to NEW` / in-place rebuild / rm / put / write / scrub --repair / status among
the killed commands. Then one command runs to the end (recovery), every file is checked
against a model of what may be there (acknowledged bytes exact; a killed write: each byte old
or new; a killed put: old or new file; a killed rm: there or gone), the rebuild is finished
with the same command, scrub must be clean, and a second failure must read every byte.

Usage: chain-kill.py CODE OSS UNIT PATH ROUNDS [seed] [chain]
  CODE as in crash-geom.py (raid5 | raid6[:K] | rs:K:M | xcode:P | dcode:P | hdp:P ...);
  PATH rmw | wcl | delayed (no windows here); chain: killed commands per round (default 6).
Env: EXARAID (binary), SHIM (killshim.so, default /tmp/s5r-killshim.so), S5R_DIR (scratch,
  default: s5r-ck under $REPRO_DIR or a new temporary directory), KILLMAX (largest kill point, default 80), KEEP=1 (copy a failing store
  to DIR-rN), NFILES (default 4), VERBOSE=1 (print every step), S5R_SELFTEST=1 (count killed
  writes as acknowledged: most rounds must then report WRONG bytes; checks the checker),
  TIMEKILL=1 (kill -9 after KILLN/4 ms, by `timeout -s KILL`, instead of at a durable call),
  ONLY=N (run round N only: a repro), SKIP=i,j (skip chain steps i, j of it: to minimize one).
Prints one block per round with a problem and "DONE ... N of R rounds with problems"."""
import json, os, random, shutil, subprocess, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)

E = os.environ.get("EXARAID", "/work/target-s5r/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s5r-killshim.so")
ROOT = os.environ.get("S5R_DIR") or scratch("s5r-ck")
VERBOSE = os.environ.get("VERBOSE")


def code_args(spec):
    p = spec.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[1]) + int(p[2]), int(p[2])
    if p[0] in ("raid5", "raid6"):
        k = int(p[1]) if len(p) > 1 else None
        m = 1 if p[0] == "raid5" else 2
        return ["--code", p[0]] + (["--k", str(k)] if k else []), (k + m if k else None), m
    width = {"xcode": 0, "dcode": 0, "hdp": -1, "rdp": 1, "evenodd": 2, "hcode": 1}[p[0]]
    prime = int(p[1]) if len(p) > 1 else 5
    return ["--code", p[0], "--p", str(prime)], prime + width, 2


def run(args, inp=b"", kill_n=None, tear=False):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    pre = []
    if kill_n is not None and os.environ.get("TIMEKILL"):
        # kill -9 after a time instead (anywhere, not only at a durable call): kill_n ms / 4
        pre = ["timeout", "-s", "KILL", "%.4f" % (kill_n / 4000.0)]
    elif kill_n is not None:
        env.update(LD_PRELOAD=SHIM, KILLN=str(kill_n), KILLTEAR="1" if tear else "0")
    p = subprocess.run(pre + [E, "store"] + args, input=inp, capture_output=True, env=env)
    if pre and p.returncode == 137:
        p.returncode = -9  # timeout reports a KILLed child as 137
    return p


class Alt:
    """One possible content of a file: committed bytes plus killed writes that may or may
    not have reached it (byte by byte). data None = the file does not exist."""

    def __init__(self, data, pending=()):
        self.data = None if data is None else bytearray(data)
        self.pending = list(pending)

    def copy(self):
        return Alt(self.data, self.pending)

    def write(self, off, w, certain):
        assert self.data is not None or certain, "callers split a missing file's alternatives"
        if self.data is None:
            self.data = bytearray()
        if certain:
            if len(self.data) < off + len(w):
                self.data.extend(b"\0" * (off + len(w) - len(self.data)))
            self.data[off:off + len(w)] = w
            # pending writes wholly under this one can no longer show
            self.pending = [(o, d) for (o, d) in self.pending if not (o >= off and o + len(d) <= off + len(w))]
        else:
            self.pending.append((off, bytes(w)))

    def matches(self, act):
        if self.data is None:
            return act is None
        if act is None:
            return False
        lens = {len(self.data)} | {max(len(self.data), o + len(d)) for (o, d) in self.pending}
        if len(act) not in lens and not (self.pending and len(self.data) <= len(act) <= max(lens)):
            return False
        base = self.data + b"\0" * max(0, len(act) - len(self.data))
        for o in range(0, len(act), 4096):
            if act[o:o + 4096] == base[o:o + 4096]:
                continue
            for i in range(o, min(o + 4096, len(act))):
                if act[i] == base[i]:
                    continue
                if not any(po <= i < po + len(pd) and pd[i - po] == act[i] for (po, pd) in self.pending):
                    return False
        return True


def files_now(d):
    p = run(["ls", d, "--json"])
    if p.returncode != 0:
        return None, p
    return set(f["name"] for f in json.loads(p.stdout)), p


def check(d, model, label):
    """Every file's content must match one alternative; then collapse the model to it."""
    bad = []
    names, p = files_now(d)
    if names is None:
        return ["%s: ls rc %d: %s" % (label, p.returncode, p.stderr.decode(errors="replace")[-300:])]
    for nm, alts in sorted(model.items()):
        if nm in names:
            g = run(["get", d, nm])
            if g.returncode != 0:
                bad.append("%s: get %s rc %d: %s" % (label, nm, g.returncode, g.stderr.decode(errors="replace")[-400:].strip()))
                continue
            act = g.stdout
        else:
            act = None
        ok = [a for a in alts if a.matches(act)]
        if not ok:
            detail = []
            for a in alts:
                if a.data is not None and act is not None:
                    n = sum(1 for i in range(min(len(act), len(a.data))) if act[i] != a.data[i])
                    detail.append("len %d vs model %d, %d bytes differ from committed, %d pending" % (len(act), len(a.data), n, len(a.pending)))
                else:
                    detail.append("present %s vs model %s" % (act is not None, a.data is not None))
            bad.append("%s: %s WRONG (exit 0): %s" % (label, nm, "; ".join(detail)))
        else:
            model[nm] = [Alt(act)]
    for nm in names - set(model):
        bad.append("%s: unexpected file %s" % (label, nm))
    return bad


def one_round(code, noss, unit, path, seed, chain):
    cargs, width, tol = code_args(code)
    r = random.Random(seed)
    d = os.path.join(ROOT, "s")
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    k = (width or noss) - tol
    stripe = unit * k
    log = []
    p = run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", path] + cargs)
    assert p.returncode == 0, p.stderr
    model = {}
    for i in range(int(os.environ.get("NFILES", "4"))):
        b = r.randbytes(r.randrange(stripe // 3, int(stripe * 2.3)))
        assert run(["put", d, "f%d" % i], b).returncode == 0
        model["f%d" % i] = [Alt(b)]
    for i in range(3):
        nm = "f%d" % r.randrange(len(model))
        cur = model[nm][0].data
        off = r.randrange(0, len(cur))
        w = r.randbytes(r.randrange(1, unit * 2))
        assert run(["write", d, nm, "--offset", str(off)], w).returncode == 0
        model[nm][0].write(off, w, True)
    failed = r.randrange(noss)
    assert run(["fail", d, "--oss", str(failed)]).returncode == 0
    log.append("init %s oss=%d unit=%d %s; fail OSS %d" % (code, noss, unit, path, failed))
    target = os.path.join(ROOT, "new-%d" % failed)
    rebuilt = False
    kmax = int(os.environ.get("KILLMAX", "80"))
    for step in range(chain):
        op = r.choice(["write", "write", "put", "rm", "rebuild-to", "rebuild-to", "rebuild", "status", "scrub"])
        kn = r.randrange(1, kmax)
        tear = r.random() < 0.5
        nm = "f%d" % r.randrange(len(model))
        if str(step) in os.environ.get("SKIP", "").split(","):
            # minimizing a repro: draw the same random numbers, run nothing
            if op == "write":
                base = max((len(a.data) for a in model[nm] if a.data is not None), default=0)
                r.randrange(0, base + unit), r.randbytes(r.randrange(1, unit * 3))
            elif op == "put":
                r.randbytes(r.randrange(1, int(stripe * 2.5)))
            log.append("  (step %d %s skipped)" % (step, op))
            continue
        if op == "write":
            base = max((len(a.data) for a in model[nm] if a.data is not None), default=0)
            off = r.randrange(0, base + unit)
            w = r.randbytes(r.randrange(1, unit * 3))
            p = run(["write", d, nm, "--offset", str(off)], w, kn, tear)
            if os.environ.get("S5R_SELFTEST"):
                p.returncode = 0  # count the killed write as acknowledged: must be reported
            alts = []
            for a in model[nm]:
                if a.data is None and p.returncode != 0:
                    # a killed write into a missing file: still missing, or created by it
                    alts += [a, Alt(b"", [(off, bytes(w))])]
                else:
                    a.write(off, w, p.returncode == 0)
                    alts.append(a)
            model[nm] = alts
            desc = "write %s --offset %d (%d B)" % (nm, off, len(w))
        elif op == "put":
            w = r.randbytes(r.randrange(1, int(stripe * 2.5)))
            p = run(["put", d, nm], w, kn, tear)
            model[nm] = [Alt(w)] if p.returncode == 0 else model[nm] + [Alt(w)]
            desc = "put %s (%d B)" % (nm, len(w))
        elif op == "rm":
            p = run(["rm", d, nm], b"", kn, tear)
            model[nm] = [Alt(None)] if p.returncode == 0 else model[nm] + [Alt(None)]
            desc = "rm %s" % nm
        elif op == "rebuild-to":
            p = run(["rebuild", d, "--oss", str(failed), "--to", target], b"", kn, tear)
            desc = "rebuild --oss %d --to %s" % (failed, target)
        elif op == "rebuild":
            p = run(["rebuild", d, "--oss", str(failed)], b"", kn, tear)
            desc = "rebuild --oss %d (in place)" % failed
        elif op == "status":
            p = run(["status", d], b"", kn, tear)
            desc = "status"
        else:
            p = run(["scrub", d, "--repair"], b"", kn, tear)
            desc = "scrub --repair"
        if op.startswith("rebuild") and p.returncode == 0:
            rebuilt = True
        line = "  KILLN=%d KILLTEAR=%d %s -> rc %d %s" % (kn, tear, desc, p.returncode,
                                                         p.stderr.decode(errors="replace").strip().replace("\n", " | ")[-300:])
        log.append(line)
        if VERBOSE:
            print(line, flush=True)
        if p.returncode not in (0, -9) and b"KILLSHIM" not in p.stderr:
            if b"panicked" in p.stderr:
                log.append("  ^^ PANIC")
        if p.returncode == 0 and rebuilt and not op.startswith("rebuild"):
            pass
        if rebuilt:
            # start the next failure cycle so later rebuilds have something to do
            q = run(["fail", d, "--oss", str(failed)])
            log.append("  fail --oss %d again -> rc %d %s" % (failed, q.returncode, q.stderr.decode(errors="replace").strip()[-200:]))
            rebuilt = False
            target = os.path.join(ROOT, "new-%d-%d" % (failed, step))
    bad = []
    p = run(["status", d])
    log.append("  status (recovery, not killed) -> rc %d %s" % (p.returncode, p.stderr.decode(errors="replace").strip()[-300:]))
    if p.returncode != 0:
        bad.append("status after the chain rc %d" % p.returncode)
    bad += check(d, model, "after the chain")
    # finish the rebuild (the same --to target if one was begun)
    st = json.loads(run(["status", d, "--json"]).stdout or b"{}")
    for o in st.get("oss", []):
        if not o.get("healthy", True):
            q = run(["rebuild", d, "--oss", str(o["index"]), "--to", target])
            if q.returncode != 0:
                q2 = run(["rebuild", d, "--oss", str(o["index"])])
                log.append("  rebuild --to rc %d (%s); in place rc %d %s" % (
                    q.returncode, q.stderr.decode(errors="replace").strip()[-200:], q2.returncode,
                    q2.stderr.decode(errors="replace").strip()[-200:]))
                if q2.returncode != 0:
                    bad.append("finishing rebuild of OSS %d failed" % o["index"])
    bad += check(d, model, "after the rebuild")
    s = run(["scrub", d])
    if s.returncode != 0:
        bad.append("scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-400:]))
    if tol >= 1:
        second = (failed + 1) % noss
        q = run(["fail", d, "--oss", str(second)])
        if q.returncode != 0:
            bad.append("second fail rc %d %s" % (q.returncode, q.stderr[-200:]))
        else:
            bad += check(d, model, "second failure (OSS %d)" % second)
    return bad, log


def main():
    code, noss, unit, path, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    chain = int(sys.argv[7]) if len(sys.argv) > 7 else 6
    found = 0
    for rd in range(rounds):
        if os.environ.get("ONLY") and rd != int(os.environ["ONLY"]):
            continue
        try:
            bad, log = one_round(code, noss, unit, path, seed * 1000 + rd, chain)
        except AssertionError as e:
            bad, log = ["setup failed: %s" % e], []
        if bad:
            found += 1
            print("round %d (seed %d) PROBLEM:" % (rd, seed * 1000 + rd), flush=True)
            for l in log + ["  => " + b for b in bad]:
                print(l, flush=True)
            if os.environ.get("KEEP"):
                shutil.copytree(ROOT, ROOT + "-r%d" % rd, dirs_exist_ok=True, symlinks=True)
    print("DONE %s oss=%d unit=%d %s seed %d chain %d: %d of %d rounds with problems" % (
        code, noss, unit, path, seed, chain, found, rounds), flush=True)
    shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
