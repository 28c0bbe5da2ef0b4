#!/usr/bin/env python3
"""Review tool (engineer s5r, not CI): kill -9 sweep over the parity advance a delayed window
gets when it times out (--window-timeout-ms) or when open windows pass
--unprotected-max-bytes, on larger geometries. Per kill point K: init (delayed), put f0..f2,
START on f1, NW window writes (acknowledged), wait past the timeout, then the next command
(TRIGGER: status | write f0 | write f1 (a window write) | rm f2) is killed at its K-th durable
call (killshim, torn when tear); then `status` (not killed) must leave no unprotected byte (the
timeout has passed), every file reads exactly (the killed command's bytes old or new), as many
OSSs as the code tolerates are failed and every byte must still read, END closes the window.

Usage: window-timeout-kill.py CODE OSS UNIT TRIGGER [plain|tear] [seed]
  CODE as in crash-geom.py (raid6 | raid6:K | rs:K:M | xcode:P ...); TRIGGER: status | write0 |
  write1 | rm2 | bound (no timeout: the killed command is a window write that passes
  --unprotected-max-bytes).
Env: EXARAID, SHIM (default /tmp/s5r-killshim.so), S5R_DIR (scratch, default /tmp/s5r-wt),
  POINTS (default 30), NW (window writes, default 5), S5R_SELFTEST=1 (no wait past the timeout:
  every point must then report unprotected bytes / lost window bytes; checks the checker).
Prints a line per kill point with a problem and "DONE ... N of P kill points with problems"."""
import json, os, random, shutil, subprocess, sys, time

E = os.environ.get("EXARAID", "/work/target-s5r/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s5r-killshim.so")
ROOT = os.environ.get("S5R_DIR", "/tmp/s5r-wt")
TIMEOUT_MS = 300


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


def run(args, inp=b"", kill_n=None, tear=False, count_file=None):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if kill_n is not None or count_file:
        env.update(LD_PRELOAD=SHIM, KILLN=str(kill_n or 0), KILLTEAR="1" if tear else "0")
        if count_file:
            env["KILLCOUNT_FILE"] = count_file
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env)


def setup(code, noss, unit, trigger, seed, d):
    cargs, width, tol = code_args(code)
    r = random.Random(seed)
    shutil.rmtree(d, ignore_errors=True)
    k = (width or noss) - tol
    stripe = unit * k
    nw = int(os.environ.get("NW", "5"))
    bound = ["--unprotected-max-bytes", str(unit * 3)] if trigger == "bound" else ["--window-timeout-ms", str(TIMEOUT_MS)]
    p = run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", "delayed"] + cargs + bound)
    assert p.returncode == 0, p.stderr
    files = {}
    for i in range(3):
        b = r.randbytes(int(stripe * 2.3) + 17 * i)
        assert run(["put", d, "f%d" % i], b).returncode == 0
        files["f%d" % i] = bytearray(b)
    tok = run(["delayed", "start", d, "f1"]).stdout.decode().strip()
    f1 = files["f1"]
    for i in range(nw if trigger != "bound" else 2):
        off = r.randrange(0, len(f1) - unit)
        w = r.randbytes(r.randrange(unit // 2, unit + 1))
        p = run(["write", d, "f1", "--offset", str(off)], w)
        assert p.returncode == 0, p.stderr
        f1[off:off + len(w)] = w
    if trigger != "bound" and not os.environ.get("S5R_SELFTEST"):
        time.sleep(TIMEOUT_MS / 1000 * 1.5)
    # the killed command and what it may change: (args, input, file, offset, bytes) or rm
    if trigger == "status":
        return files, tok, ["status", d], b"", None, tol
    if trigger in ("write0", "write1", "bound"):
        nm = "f0" if trigger == "write0" else "f1"
        off = r.randrange(0, len(files[nm]) - 2 * unit)
        w = r.randbytes(unit * 2 if trigger == "bound" else unit)
        return files, tok, ["write", d, nm, "--offset", str(off)], w, (nm, off, w), tol
    if trigger == "rm2":
        return files, tok, ["rm", d, "f2"], b"", ("rm", "f2"), tol
    raise SystemExit("unknown trigger " + trigger)


def check(d, files, change, acked, label):
    bad = []
    for nm, exp in list(files.items()):
        g = run(["get", d, nm])
        if change and change[0] == "rm" and change[1] == nm:
            if g.returncode != 0 and b"no file named" in g.stderr:
                del files[nm]  # the killed rm was finished by the next open: gone from now on
                continue
            if acked and g.returncode == 0:
                bad.append("%s: %s still there after an acknowledged rm" % (label, nm))
                continue
        if g.returncode != 0:
            bad.append("%s: get %s rc %d: %s" % (label, nm, g.returncode, g.stderr.decode(errors="replace")[-300:].strip()))
            continue
        act = g.stdout
        if change and change[0] == nm:
            _, off, w = change
            new = bytearray(exp)
            new[off:off + len(w)] = w
            if acked:
                ok = act == bytes(new)
            else:
                ok = len(act) == len(exp) and all(act[i] == exp[i] or act[i] == new[i] for i in range(len(act)) if act[i] != exp[i])
            if ok:
                files[nm] = bytearray(act)
            else:
                n = sum(1 for i in range(min(len(act), len(exp))) if act[i] != exp[i] and act[i] != new[i])
                bad.append("%s: %s WRONG BYTES exit 0 (%d bytes neither old nor new, len %d vs %d)" % (label, nm, n, len(act), len(exp)))
        elif act != bytes(exp):
            n = sum(1 for i in range(min(len(act), len(exp))) if act[i] != exp[i])
            bad.append("%s: %s WRONG BYTES exit 0 (%d differ, len %d vs %d)" % (label, nm, n, len(act), len(exp)))
    return bad


def main():
    code, noss, unit, trigger = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    tear = len(sys.argv) > 5 and sys.argv[5] == "tear"
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 5
    d = os.path.join(ROOT, "s")
    files, tok, cmd, inp, change, tol = setup(code, noss, unit, trigger, seed, d)
    cf = ROOT + "/count"
    run(cmd, inp, count_file=cf)
    total = int(open(cf).read().strip())
    maxp = int(os.environ.get("POINTS", "30"))
    points = list(range(1, total + 1)) if total <= maxp else sorted(set(
        [1, 2, 3, total - 1, total] + [1 + (total - 1) * i // (maxp - 5) for i in range(maxp - 5)]))
    print("%s oss=%d unit=%d %s %s: %d durable calls, %d points" % (code, noss, unit, trigger, "tear" if tear else "plain", total, len(points)), flush=True)
    found = 0
    for n in points:
        files, tok, cmd, inp, change, tol = setup(code, noss, unit, trigger, seed, d)
        p = run(cmd, inp, kill_n=n, tear=tear)
        acked = p.returncode == 0
        bad = []
        if p.returncode not in (0, -9):
            bad.append("command rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-300:]))
        s = run(["status", d, "--json"])
        try:
            st = json.loads(s.stdout)
        except ValueError:
            st = {}
            bad.append("status rc %d: %s" % (s.returncode, s.stderr.decode(errors="replace")[-300:]))
        unprot = st.get("unprotected_bytes", st.get("bytes_unprotected"))
        if trigger != "bound" and unprot:
            bad.append("after the timeout and a clean open: %s unprotected bytes" % unprot)
        if st.get("lost_ranges"):
            bad.append("lost ranges: %s" % st["lost_ranges"])
        bad += check(d, files, change, acked, "after kill")
        # as many failures as the code tolerates: the window's bytes must have parity by now
        if trigger != "bound":
            failed = []
            for o in range(tol):
                q = run(["fail", d, "--oss", str((n + 2 * o) % noss)])
                if q.returncode == 0:
                    failed.append((n + 2 * o) % noss)
            bad += check(d, files, None, True, "with OSSs %s failed" % failed)
            for o in failed:
                run(["online", d, "--oss", str(o)])
        e = run(["delayed", "end", d, tok])
        if e.returncode != 0:
            bad.append("END rc %d: %s" % (e.returncode, e.stderr.decode(errors="replace")[-300:]))
        sc = run(["scrub", d])
        if sc.returncode != 0:
            bad.append("scrub rc %d: %s" % (sc.returncode, sc.stdout.decode(errors="replace")[-300:]))
        bad += check(d, files, None, True, "after END")
        if bad:
            found += 1
            print("n=%d %s %s" % (n, "killed" if p.returncode == -9 else "rc %d" % p.returncode,
                                  [l for l in p.stderr.decode(errors="replace").splitlines() if "KILLSHIM" in l][:1]), flush=True)
            for b in bad:
                print("   ", b, flush=True)
    print("DONE %s oss=%d unit=%d %s %s seed %d: %d of %d kill points with problems" % (
        code, noss, unit, trigger, "tear" if tear else "plain", seed, found, len(points)), flush=True)
    shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
