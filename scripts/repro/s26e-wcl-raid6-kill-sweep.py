#!/usr/bin/env python3
"""s26e: deterministic kill points in place of store_crash.rs's random SIGKILL.

The scene of `wcl_raid6_survives_kill_9_inside_recovery_after_random_crashes` (raid6 3+2,
WCL, 5 OSSs, 4 KiB stripe unit, `torture` writes), with the writer killed at a named kill
point instead of after a delay: `write-torn-block:N` in plan order, optionally with every
OSS caught in a torn block at once (`EXARAID_KILL_TEAR_EVERY_OSS`, what one SIGKILL does
to the per-OSS write threads), or a point given by --writer-point (e.g. a page-cut point of
a patched binary); then recovery killed 0..=3 times at `settle-torn-block` /
`settle-element` / `settle-stripe` passes (optionally in plan order, or with every OSS torn
too), then an open that finishes it, and the test's checks: every acknowledged byte reads
back (the write in flight old or new), scrub clean. Trials are drawn from a fixed seed, so
a failing trial repeats: its line names the writer's kill and the recovery kills, and a
copy of the store before the in-flight write is kept under KEEP.

Usage: s26e-wcl-raid6-kill-sweep.py EXARAID_BIN KEEP_DIR SEED TRIALS [--writer-point P]
       [--prefill-max N] [--code raid6:5|xcode:5:5|...] [--unit BYTES]
       [--recovery-points settle-torn-block,settle-page-cut,...]
s27c: --code (scripts/repro/common.py's code_args; default raid6 3+2), --unit (default 4096)
and --recovery-points (default the three above) widen the scene; the page-cut points are one
family since s27c: write-page-cut[-last] (a writer), settle-page-cut[-last] (a recovery).
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import tempfile
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import code_args  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("loop", os.path.join(HERE, "s26e-crash-recovery-loop.py"))
loop = importlib.util.module_from_spec(spec)
spec.loader.exec_module(loop)

POINTS = ["settle-torn-block", "settle-element", "settle-stripe"]


def run(exe, args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("EXARAID_")}
    if env:
        e.update(env)
    return subprocess.run([exe] + args, env=e, capture_output=True)


def check(exe, d, model, fl_off, fl_data):
    fl_end = fl_off + len(fl_data)
    r = run(exe, ["store", "ls", d])
    if r.returncode != 0:
        return f"ls failed: {r.stderr.decode()}"
    content = b""
    if loop.FILE in r.stdout.decode():
        g = run(exe, ["store", "get", d, loop.FILE])
        if g.returncode != 0:
            return f"get failed rc={g.returncode}: {g.stderr.decode()}"
        content = g.stdout
    if not (len(content) == len(model) or len(content) == max(len(model), fl_end)):
        return f"file is {len(content)} bytes, acknowledged {len(model)}"
    for b, got in enumerate(content):
        old = model[b] if b < len(model) else 0
        if fl_off <= b < fl_end:
            if got != old and got != fl_data[b - fl_off]:
                return f"WRONG in-flight byte {b}: {got} old {old}"
        elif got != old:
            return f"WRONG acknowledged byte {b}: {got} was {old}"
    s = run(exe, ["store", "scrub", d])
    if s.returncode != 0:
        return f"scrub rc={s.returncode}: {s.stdout.decode()} {s.stderr.decode()}"
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("exe")
    ap.add_argument("keep")
    ap.add_argument("seed", type=lambda s: int(s, 0))
    ap.add_argument("trials", type=int)
    ap.add_argument("--writer-point", default="write-torn-block")
    ap.add_argument("--prefill-max", type=int, default=40)
    ap.add_argument("--n-max", type=int, default=12)
    ap.add_argument("--code", default="raid6:5")
    ap.add_argument("--unit", type=int, default=4096)
    ap.add_argument("--recovery-points", default=",".join(POINTS))
    a = ap.parse_args()
    points = a.recovery_points.split(",")
    oss, extra = code_args(a.code)
    if a.code == "raid6:5":
        extra = ["--k", "3"]
    os.makedirs(a.keep, exist_ok=True)
    logf = open(os.path.join(a.keep, f"sweep-{a.seed:#x}.txt"), "a")

    def log(s):
        line = f"{time.strftime('%H:%M:%S')} {s}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    rng = loop.Rng(a.seed)
    fails = killed = skipped = 0
    tmp = tempfile.mkdtemp(prefix="s26e-sweep-", dir="/dev/shm")
    try:
        for t in range(a.trials):
            wseed = 0x5EED0006 + rng.below(1 << 16)
            prefill = 1 + rng.below(a.prefill_max)
            n = 1 + rng.below(a.n_max)
            tear_all = rng.below(2) == 1
            kills = [(points[rng.below(len(points))], 1 + rng.below(12)) for _ in range(rng.below(4))]
            rec_in_order = rng.below(2) == 1
            d = os.path.join(tmp, "store")
            shutil.rmtree(d, ignore_errors=True)
            r = run(a.exe, ["store", "init", d, "--oss", str(oss), "--code", a.code.split(":")[0]]
                    + extra + ["--stripe-unit", str(a.unit), "--write-path", "wcl"])
            assert r.returncode == 0, r.stderr
            r = run(a.exe, ["store", "torture", d, "--seed", str(wseed), "--start", "0",
                            "--count", str(prefill)])
            assert r.returncode == 0, r.stderr
            pre = os.path.join(tmp, "pre")
            shutil.rmtree(pre, ignore_errors=True)
            shutil.copytree(d, pre, symlinks=True)
            model = bytearray()
            for i in range(prefill):
                off, data = loop.write_of(wseed, i)
                if len(model) < off + len(data):
                    model.extend(b"\0" * (off + len(data) - len(model)))
                model[off:off + len(data)] = data
            env = {"EXARAID_KILL_AT": f"{a.writer_point}:{n}", "EXARAID_KILL_IN_PLAN_ORDER": "1"}
            if tear_all:
                env["EXARAID_KILL_TEAR_EVERY_OSS"] = "1"
            w = run(a.exe, ["store", "torture", d, "--seed", str(wseed), "--start", str(prefill),
                            "--count", "1"], env)
            fl_off, fl_data = loop.write_of(wseed, prefill)
            if w.returncode == 0:
                # The write finished before the n-th pass: acknowledged.
                if len(model) < fl_off + len(fl_data):
                    model.extend(b"\0" * (fl_off + len(fl_data) - len(model)))
                model[fl_off:fl_off + len(fl_data)] = fl_data
                fl_off, fl_data = 0, b""
            elif w.returncode != -9 and tear_all and b"checksum mismatch" in w.stderr:
                # With every OSS caught in a torn block, a later read of the same write met
                # one of them and the write failed before the kill: not a crash state.
                skipped += 1
                continue
            else:
                assert w.returncode == -9, (w.returncode, w.stderr)
                killed += 1
            done = []
            for point, m in kills:
                env = {"EXARAID_KILL_AT": f"{point}:{m}"}
                if rec_in_order:
                    env["EXARAID_KILL_IN_PLAN_ORDER"] = "1"
                r = run(a.exe, ["store", "ls", d], env)
                if r.returncode == 0:
                    done.append(f"{point}:{m} finished")
                    break
                assert r.returncode == -9, (point, m, r.returncode, r.stderr)
                done.append(f"{point}:{m}")
            problem = check(a.exe, d, model, fl_off, fl_data)
            what = (f"trial {t}: wseed {wseed:#x} prefill {prefill} writer {a.writer_point}:{n}"
                    f"{' tear-every-oss' if tear_all else ''} rc {w.returncode}"
                    f" recovery{' in order' if rec_in_order else ''} {done}")
            if problem:
                fails += 1
                where = os.path.join(a.keep, f"sweep-{a.seed:#x}-trial-{t}")
                shutil.rmtree(where, ignore_errors=True)
                shutil.copytree(pre, os.path.join(where, "pre"), symlinks=True)
                shutil.copytree(d, os.path.join(where, "after"), symlinks=True)
                with open(os.path.join(where, "what.txt"), "w") as f:
                    f.write(what + "\n" + problem + "\nwriter stderr:\n" + w.stderr.decode())
                log(f"FAIL {what}: {problem[:600]}")
            if t % 50 == 49:
                log(f"{t + 1} trials, {killed} writers killed, {skipped} skipped, {fails} failed")
        log(f"done: {a.trials} trials, {killed} writers killed, {skipped} skipped, {fails} failed")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
