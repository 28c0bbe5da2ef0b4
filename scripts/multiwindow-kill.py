#!/usr/bin/env python3
"""Review tool (engineer s8r, not CI): kill -9 sweep over the parity advance that
--unprotected-max-bytes fires while SEVERAL delayed windows on several files are open (the
bound is the store's, not a window's: the advance moves every window's cached bytes home).
window-timeout-kill.py has one window; this one has NWIN windows (f0.. f{NWIN-1}), each with
acknowledged window writes, and the write into window f1 that passes the bound is killed at
every durable call (torn or plain). Then: every file reads exactly (the killed write old or
new per byte), `status` unprotected <= the bound, every END rc 0, the code's tolerance of OSSs
failed and every file again, rebuild of each, scrub exit 0.
With TIMEOUT=1 instead: no bound, `--window-timeout-ms 300`, the windows time out and the
killed command is a write into f3 (no window) that fires their timeouts at its open.

Usage: multiwindow-kill.py CODE OSS UNIT [plain|tear] [seed]
Env: EXARAID, SHIM (scripts/killshim.c built), REPRO_DIR, POINTS (default 24), NWIN (default 3).
Prints one line per problem and a DONE line."""
import importlib.util
import json
import os
import random
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
os.environ.setdefault("SHIM", "/tmp/s8r-killshim.so")
_spec = importlib.util.spec_from_file_location("crash_geom", os.path.join(HERE, "crash-geom.py"))
cg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cg)
run, check, rnd, must = cg.run, cg.check, cg.rnd, cg.must


def setup(code, noss, unit, seed, d, nwin, timeout):
    cargs, width, tol = cg.code_args(code)
    shutil.rmtree(d, ignore_errors=True)
    k = (width or noss) - tol
    stripe = unit * k
    r = random.Random(seed)
    per_window = 2
    # window writes of unit/4 .. unit/2: at most the bound together; the killed write of
    # 2 units + 333 bytes always passes it
    bound = unit * per_window * nwin // 2 + 1
    limit = ["--window-timeout-ms", "300"] if timeout else ["--unprotected-max-bytes", str(bound)]
    must(run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", "delayed"] + cargs + limit), "init")
    files = {}
    for i in range(nwin + 1):
        b = rnd(seed * 100 + i, int(stripe * 2.3) + 17 * i)
        must(run(["put", d, "f%d" % i], b), "put")
        files["f%d" % i] = bytearray(b)
    tokens = []
    for i in range(nwin):
        tokens.append(must(run(["delayed", "start", d, "f%d" % i]), "start").stdout.decode().strip())
        for j in range(per_window):
            f = files["f%d" % i]
            off = r.randrange(0, len(f) - unit)
            w = rnd(seed * 1000 + i * 10 + j, r.randrange(unit // 4, unit // 2))
            must(run(["write", d, "f%d" % i, "--offset", str(off)], w), "window write")
            f[off:off + len(w)] = w
    target = "f3" if timeout else "f1"
    if timeout:
        time.sleep(0.45)
    f = files[target]
    off = r.randrange(0, len(f) - 2 * unit)
    w = rnd(seed * 1000 + 999, 2 * unit + 333)
    new = bytearray(f)
    new[off:off + len(w)] = w
    acc = {n: [bytes(b)] for n, b in files.items()}
    acc[target] = ("mix", bytes(f), bytes(new))
    return acc, ["write", d, target, "--offset", str(off)], w, tokens, bound, tol, bytes(new)


def main():
    code, noss, unit = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    tear = len(sys.argv) > 4 and sys.argv[4] == "tear"
    seed = int(sys.argv[5]) if len(sys.argv) > 5 else 7
    nwin = int(os.environ.get("NWIN", "3"))
    timeout = bool(os.environ.get("TIMEOUT"))
    base = os.environ.get("REPRO_DIR") or cg.scratch("s8r-mw")
    d = os.path.join(base, "mw-%s-%d-%d" % (code.replace(":", "_"), noss, unit))
    acc, cmd, inp, tokens, bound, tol, new = setup(code, noss, unit, seed, d, nwin, timeout)
    cf = d + ".count"
    p = run(cmd, inp, count_file=cf)
    st = json.loads(run(["status", d, "--json"]).stdout)
    print("unkilled: unprotected %s, open windows %d" % (st["bytes_unprotected"], len(st["open_windows"])), flush=True)
    total = int(open(cf).read().strip())
    os.remove(cf)
    maxp = int(os.environ.get("POINTS", "24"))
    points = list(range(1, total + 1)) if total <= maxp else sorted(set(
        [1, 2, 3, total - 1, total] + [1 + (total - 1) * i // (maxp - 5) for i in range(maxp - 5)]))
    print("%s oss=%d unit=%d %s nwin=%d %s: %d durable calls (rc unkilled %d), %d points" % (
        code, noss, unit, "tear" if tear else "plain", nwin, "timeout" if timeout else "bound %d" % bound,
        total, p.returncode, len(points)), flush=True)
    problems = 0
    for n in points:
        acc, cmd, inp, tokens, bound, tol, new = setup(code, noss, unit, seed, d, nwin, timeout)
        p = run(cmd, inp, kill_n=n, tear=tear)
        bad = []
        if p.returncode == 0:
            acc[cmd[2]] = [new]
        elif p.returncode != -9:
            bad.append("command rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[-300:]))
        bad += check(d, acc, "after kill")
        st = run(["status", d, "--json"])
        try:
            j = json.loads(st.stdout)
            unprot = j.get("unprotected_bytes", j.get("bytes_unprotected"))
            if timeout and unprot:
                bad.append("unprotected %s after the timeouts" % unprot)
            elif isinstance(unprot, int) and unprot > bound:
                bad.append("unprotected %d > bound %d" % (unprot, bound))
        except ValueError:
            bad.append("status --json failed: %s" % st.stderr.decode(errors="replace")[-200:])
        for t in tokens:
            e = run(["delayed", "end", d, t])
            if e.returncode:
                bad.append("END %s rc %d: %s" % (t, e.returncode, e.stderr.decode(errors="replace")[-300:]))
        fails = random.Random(n).sample(range(noss), tol)
        for f in fails:
            q = run(["fail", d, "--oss", str(f)])
            if q.returncode:
                bad.append("fail %d rc %d" % (f, q.returncode))
        bad += check(d, acc, "with %s failed" % fails)
        for f in fails:
            q = run(["rebuild", d, "--oss", str(f)])
            if q.returncode:
                bad.append("rebuild %d rc %d: %s" % (f, q.returncode, q.stderr.decode(errors="replace")[-300:]))
        s = run(["scrub", d])
        if s.returncode:
            bad.append("scrub rc %d" % s.returncode)
        bad += check(d, acc, "after rebuilds")
        if bad:
            problems += 1
            where = [l for l in p.stderr.decode(errors="replace").splitlines() if "KILLSHIM" in l][:1]
            print("n=%d rc %d %s" % (n, p.returncode, where), flush=True)
            for b in bad:
                print("   " + b, flush=True)
    print("DONE %s oss=%d unit=%d %s nwin=%d %s: %d problems of %d points" % (
        code, noss, unit, "tear" if tear else "plain", nwin, "timeout" if timeout else "bound", problems, len(points)), flush=True)
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
