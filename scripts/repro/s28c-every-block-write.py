#!/usr/bin/env python3
"""s28c: every block write of every write of a `store torture` sequence, cut (no rot, no failed
disk, no recovery kill): a crash ALONE must never lose a byte.

For torture seed SEED on a fresh WCL store (CODE, UNIT), writes 0..FIRST are acknowledged, then
for each write i in FIRST..LAST and each n in 1..=NMAX, a copy of the store after writes 0..i has
write i killed at POINT:n in plan order (default write-page-cut: stopped at its first 4 KiB
boundary inside the n-th block write; on a page-aligned block, cache slot 0, that writes nothing
of it, so the kill lands between two block writes, the state s28c's loss needed;
`--point write-before-block`, s29e: dies just before the n-th block write on any slot, every
earlier one whole), then `get`
must read every acknowledged byte (write i's bytes old or new) and `scrub` exit 0. A write that
finishes before the n-th block write ends the n loop. The deterministic, exhaustive form of
s26e's sweep without its recovery kills.

Usage: EXARAID=BIN s28c-every-block-write.py DIR SEED FIRST LAST [--code raid6:5] [--unit 4096]
       [--point write-page-cut] [--nmax 12] [--write-path wcl]
(s29e: --write-path rmw|delayed runs the same sweep on the other write paths.)
(s33g: --order-seed S runs each killed write's plans in the seeded merge of their per-OSS
step lists (EXARAID_STEP_ORDER_SEED=S) instead of plan order; its n then counts block writes
in that order.)
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import code_args  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("loop", os.path.join(HERE, "s26e-crash-recovery-loop.py"))
loop = importlib.util.module_from_spec(spec)
spec.loader.exec_module(loop)


def run(args, env=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("EXARAID_")}
    e.update(env or {})
    return subprocess.run(["timeout", "120", os.environ["EXARAID"], "store"] + args, env=e,
                          capture_output=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("seed", type=lambda s: int(s, 0))
    ap.add_argument("first", type=int)
    ap.add_argument("last", type=int)
    ap.add_argument("--code", default="raid6:5")
    ap.add_argument("--unit", type=int, default=4096)
    ap.add_argument("--point", default="write-page-cut")
    ap.add_argument("--nmax", type=int, default=12)
    ap.add_argument("--write-path", default="wcl", choices=["wcl", "rmw", "delayed"])
    ap.add_argument("--order-seed", type=int, default=None)
    a = ap.parse_args()
    assert 0 <= a.first < a.last and a.nmax >= 1
    oss, extra = code_args(a.code)
    if a.code == "raid6:5":
        extra = ["--k", "3"]
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir)
    base, trial = os.path.join(a.dir, "base"), os.path.join(a.dir, "trial")
    assert run(["init", base, "--oss", str(oss), "--code", a.code.split(":")[0]] + extra
               + ["--stripe-unit", str(a.unit), "--write-path", a.write_path]).returncode == 0
    torture = lambda d, start, count, env=None: run(  # noqa: E731
        ["torture", d, "--seed", str(a.seed), "--start", str(start), "--count", str(count)], env)
    assert torture(base, 0, a.first).returncode == 0
    model = bytearray()

    def put_over(off, data):
        if len(model) < off + len(data):
            model.extend(b"\0" * (off + len(data) - len(model)))
        model[off:off + len(data)] = data

    for i in range(a.first):
        put_over(*loop.write_of(a.seed, i))
    killed = failed = 0
    for i in range(a.first, a.last):
        off, data = loop.write_of(a.seed, i)
        for n in range(1, a.nmax + 1):
            shutil.rmtree(trial, ignore_errors=True)
            shutil.copytree(base, trial, symlinks=True)
            env = {"EXARAID_KILL_AT": f"{a.point}:{n}", "EXARAID_KILL_IN_PLAN_ORDER": "1"}
            if a.order_seed is not None:
                env["EXARAID_STEP_ORDER_SEED"] = str(a.order_seed)
            w = torture(trial, i, 1, env)
            if w.returncode == 0:
                break  # the write finished before its n-th block write
            assert w.returncode == -9, (w.returncode, w.stderr)
            killed += 1
            problem = None
            g = run(["get", trial, loop.FILE])
            if g.returncode != 0 and not model and b"no file named" in g.stderr:
                pass  # write 0 (the file's first) cut: no file, nothing acknowledged
            elif g.returncode != 0:
                problem = f"get rc={g.returncode}: {g.stderr.decode()[-400:]}"
            else:
                got = g.stdout
                end = off + len(data)
                if not (len(got) == len(model) or len(got) == max(len(model), end)):
                    problem = f"file is {len(got)} bytes, acknowledged {len(model)}"
                for b, x in enumerate(got):
                    if problem:
                        break
                    old = model[b] if b < len(model) else 0
                    if x != old and not (off <= b < end and x == data[b - off]):
                        problem = f"WRONG byte {b}: {x} acknowledged {old}"
                if not problem:
                    s = run(["scrub", trial])
                    if s.returncode != 0:
                        problem = f"scrub rc={s.returncode}: {s.stdout.decode()[-300:]}"
            if problem:
                failed += 1
                print(f"FAIL seed {a.seed:#x} write {i} at {a.point}:{n}: {problem}", flush=True)
        assert torture(base, i, 1).returncode == 0
        put_over(off, data)
    print(f"done: {a.code} {a.write_path} unit {a.unit} seed {a.seed:#x} order seed {a.order_seed} "
          f"writes {a.first}..{a.last} {a.point}: "
          f"{killed} killed, {failed} failed", flush=True)


if __name__ == "__main__":
    main()
