#!/usr/bin/env python3
"""Sweep the kill points of a delayed window's END, then one dead disk (review s9s S9-5),
as crates/cli/tests/cli/store_window_end_crash_dead_disk.rs does, and classify each point.

usage: s12u-end-kill.py EXARAID CODE POINT [ORDER] [ROUNDS]
  CODE: raid5 | raid6 | rs43;  POINT: write-torn-block | journal-record
  ORDER: plan (EXARAID_KILL_IN_PLAN_ORDER set: deterministic) | threads (default order)
         | tear (plan order, EXARAID_KILL_TEAR_EVERY_OSS: every OSS caught in a torn block)
  ROUNDS: how many times to sweep (threads order differs between runs)
Prints one line per kill point: n, killed?, the block the kill tore, LOST / WRONG.
"""
import os, shutil, subprocess, sys, tempfile

EXARAID, CODE, POINT = sys.argv[1], sys.argv[2], sys.argv[3]
ORDER = sys.argv[4] if len(sys.argv) > 4 else "plan"
ROUNDS = int(sys.argv[5]) if len(sys.argv) > 5 else 1
CODES = {"raid5": (["--code", "raid5"], "5"), "raid6": (["--code", "raid6"], "6"),
         "rs43": (["--code", "rs", "--k", "4", "--m", "3"], "7")}
K, UNIT = 4, 4096
FILE_BYTES = 60000
DEAD = "0"
WRITES = [(5000, 3000), (9000, 6000), (16484, 3000), (25076, 4000), (32768, 8192), (45056, 4096)]


def pattern(seed, n):  # common::bytes
    return bytes(((i * 31 + seed) & 0xFF) ^ ((i >> 8) & 0xFF) for i in range(n))


def run(args, stdin=b"", env=None, check=True):
    e = dict(os.environ)
    e.pop("EXARAID_KILL_AT", None)
    e.pop("EXARAID_KILL_IN_PLAN_ORDER", None)
    e.pop("EXARAID_KILL_TEAR_EVERY_OSS", None)
    if env:
        e.update(env)
    r = subprocess.run([EXARAID] + args, input=stdin, capture_output=True, env=e)
    if check and r.returncode != 0:
        sys.exit(f"{args}: rc {r.returncode}: {r.stderr.decode()}")
    return r


def main():
    base = tempfile.mkdtemp(prefix="s12u-end-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    d, pristine = os.path.join(base, "store"), os.path.join(base, "pristine")
    args, oss = CODES[CODE]
    run(["store", "init", d, "--oss", oss, "--stripe-unit", "4096", "--write-path", "delayed",
         "--window-timeout-ms", "600000"] + args)
    model = bytearray(pattern(1, FILE_BYTES))
    run(["store", "put", d, "f"], bytes(model))
    token = run(["store", "delayed", "start", d, "f"]).stdout.decode().strip()
    for i, (off, n) in enumerate(WRITES):
        new = pattern(10 + i, n)
        run(["store", "write", d, "f", "--offset", str(off)], new)
        model[off:off + n] = new
    shutil.copytree(d, pristine)
    totals = {"points": 0, "lost": 0, "wrong": 0}
    for rnd in range(ROUNDS):
        for n in range(1, 200):
            shutil.rmtree(d)
            shutil.copytree(pristine, d)
            env = {"EXARAID_KILL_AT": f"{POINT}:{n}"}
            if ORDER in ("plan", "tear"):
                env["EXARAID_KILL_IN_PLAN_ORDER"] = "1"
            if ORDER == "tear":
                env["EXARAID_KILL_TEAR_EVERY_OSS"] = "1"
            r = run(["store", "delayed", "end", d, token], env=env, check=False)
            killed = r.returncode != 0
            if killed and r.returncode != -9:
                sys.exit(f"END at {n}: rc {r.returncode}: {r.stderr.decode()}")
            where = " ; ".join(r.stderr.decode().strip().replace(base, "").splitlines())
            o = os.path.join(d, f"oss-{DEAD}")
            shutil.rmtree(o)
            os.makedirs(o)
            f = run(["store", "fail", d, "--oss", DEAD], check=False)
            out = f.stdout.decode() + f.stderr.decode()
            g = run(["store", "get", d, "f"], check=False)
            lost = [l for l in out.splitlines() if "LOST" in l or "lost" in l]
            wrong = g.returncode == 0 and g.stdout != bytes(model)
            cls = "WRONG" if wrong else ("LOST" if lost or g.returncode != 0 else "ok")
            if killed:
                totals["points"] += 1
                totals["lost"] += cls == "LOST"
                totals["wrong"] += cls == "WRONG"
            print(f"round {rnd} n {n} killed {killed} {cls} | {where} | {' / '.join(lost)[:400]}", flush=True)
            if not killed:
                break
    print(f"TOTAL {CODE} {POINT} {ORDER} rounds {ROUNDS}: points {totals['points']} LOST {totals['lost']} WRONG {totals['wrong']}")
    shutil.rmtree(base)


main()
