#!/usr/bin/env python3
"""Review tool (engineer s8r, not CI): a differential check of stripe units at the extremes
(4 KiB, 4 MiB) through the CLI. Random puts that grow and shrink files to sizes at stripe and
unit edges (0, 1, unit - 1, stripe + 1, ...), unaligned writes that straddle unit, stripe and
file-end boundaries, sparse writes far past the end, delayed windows around them; after every
step `ls --json` sizes and reads of the touched ranges and of random ranges are compared with
a model (whole `get` for files under GET_MAX bytes). At the end: the code's tolerance of OSSs
failed, every file read, a rebuild of each in turn (every file read after each), scrub exit 0.

Usage: extreme-units.py CODE PATH UNIT SEED STEPS
  CODE as in crash-geom.py (raid6, rs:4:3, xcode:5, ...); PATH rmw|wcl|delayed; UNIT bytes.
Env: EXARAID, REPRO_DIR (scratch), FAR (stripes a sparse write may land past the end,
  default 40 for units <= 64 KiB, 2 above), LEN_MAX (largest write, default 2 stripes + a
  unit, at most 6 MiB), GET_MAX (default 48 MiB), SELFTEST=1 (the model drops one write: must
  report a difference; checks the checker).
Prints the first difference with the op log and exits 1, or a DONE line."""
import importlib.util
import json
import os
import random
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("crash_geom", os.path.join(HERE, "crash-geom.py"))
cg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(cg)
run = cg.run

LOG = []


class Diff(Exception):
    pass


def op(args, inp=b""):
    p = run(args, inp)
    LOG.append((" ".join(a if len(a) < 40 else a[:37] + "..." for a in args[:1] + args[2:]), len(inp), p.returncode,
                p.stderr.decode(errors="replace")[-200:].strip()))
    return p


def compare(d, model, touched, r, get_max):
    ls = op(["ls", d, "--json"])
    try:
        listed = json.loads(ls.stdout)
    except ValueError:
        raise Diff("ls --json: %s" % ls.stderr.decode(errors="replace"))
    entries = listed if isinstance(listed, list) else listed.get("files", [])
    sizes = {}
    for e in entries:
        sizes[e.get("name")] = e.get("size_bytes", e.get("size"))
    for nm, cur in model.items():
        if sizes.get(nm) != len(cur):
            raise Diff("ls size of %s: %s, model %d" % (nm, sizes.get(nm), len(cur)))
        if len(cur) <= get_max:
            g = op(["get", d, nm])
            if g.returncode != 0 or g.stdout != bytes(cur):
                bad, first = cg.diff_count(g.stdout, bytes(cur)) if g.returncode == 0 else (None, None)
                raise Diff("get %s rc %d len %d (model %d) %s bad first %s %s" % (
                    nm, g.returncode, len(g.stdout), len(cur), bad, first, g.stderr.decode(errors="replace")[-200:]))
        ranges = [t for t in touched if t[0] == nm]
        for _ in range(2):
            if len(cur):
                a = r.randrange(len(cur))
                ranges.append((nm, a, r.randrange(1, min(len(cur) - a, 3 << 20) + 1)))
        for _, a, n in ranges:
            if a >= len(cur):
                continue
            n = min(n, len(cur) - a, 6 << 20)
            q = op(["read", d, nm, "--offset", str(a), "--length", str(n)])
            if q.returncode != 0 or q.stdout != bytes(cur[a:a + n]):
                raise Diff("read %s %d+%d rc %d: %s" % (nm, a, n, q.returncode, q.stderr.decode(errors="replace")[-200:]))
    for nm in sizes:
        if nm not in model:
            raise Diff("ls lists %r, the model has no such file" % nm)


def main():
    code, path, unit, seed, steps = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    cargs, width, tol = cg.code_args(code)
    noss = (width or 6) + 1
    k = (width or noss) - tol
    stripe = unit * k
    far = int(os.environ.get("FAR", "40" if unit <= 65536 else "2"))
    len_max = int(os.environ.get("LEN_MAX", str(min(2 * stripe + unit, 6 << 20))))
    get_max = int(os.environ.get("GET_MAX", str(48 << 20)))
    r = random.Random(seed)
    base = os.environ.get("REPRO_DIR") or cg.scratch("s8r-xu")
    d = os.path.join(base, "xu-%s-%s-%d-%d" % (code.replace(":", "_"), path, unit, seed))
    shutil.rmtree(d, ignore_errors=True)
    p = op(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", path] + cargs)
    if p.returncode:
        raise SystemExit("init: %s" % p.stderr.decode())
    model = {}
    windows = {}
    names = ["a", "b", "c"]
    selftest = bool(os.environ.get("SELFTEST"))

    def edge_size():
        j = r.randrange(0, 4)
        return max(0, r.choice([0, 1, unit - 1, unit, unit + 1, j * stripe - 1, j * stripe, j * stripe + 1,
                                j * stripe + unit - 3, r.randrange(1, 3 * stripe)]))

    try:
        for step in range(steps):
            what = r.choices(["put", "write", "far", "end_cross", "dstart", "dend"],
                             [3, 8, 2, 3, 2 if path == "delayed" else 0, 2 if path == "delayed" else 0])[0]
            nm = r.choice(names)
            touched = []
            if what == "put":
                if nm in windows:
                    continue
                data = os.urandom(edge_size())
                p = op(["put", d, nm], data)
                if p.returncode != 0:
                    raise Diff("put rc %d" % p.returncode)
                model[nm] = bytearray(data)
            elif what in ("write", "far", "end_cross"):
                cur = model.get(nm, bytearray())
                if what == "write":
                    j = r.randrange(0, max(1, len(cur) // stripe + 2))
                    edge = r.choice([j * stripe, j * unit])
                    off = max(0, edge - r.randrange(1, unit + 1))
                elif what == "far":
                    off = len(cur) + r.randrange(1, far + 1) * stripe + r.randrange(unit)
                else:
                    off = max(0, len(cur) - r.randrange(1, unit + 1))
                n = r.randrange(1, len_max + 1)
                data = os.urandom(n)
                p = op(["write", d, nm, "--offset", str(off)], data)
                if p.returncode != 0:
                    raise Diff("write %s %d+%d rc %d: %s" % (nm, off, n, p.returncode, p.stderr.decode(errors="replace")[-300:]))
                if len(cur) < off + n:
                    cur.extend(b"\0" * (off + n - len(cur)))
                if not (selftest and step == steps // 2):
                    cur[off:off + n] = data
                model[nm] = cur
                touched.append((nm, max(0, off - 7), n + 14))
            elif what == "dstart":
                if nm in windows:
                    continue
                p = op(["delayed", "start", d, nm])
                if p.returncode != 0:
                    raise Diff("start rc %d" % p.returncode)
                windows[nm] = p.stdout.decode().strip()
                model.setdefault(nm, bytearray())
            elif what == "dend":
                if nm not in windows:
                    continue
                p = op(["delayed", "end", d, windows.pop(nm)])
                if p.returncode != 0:
                    raise Diff("end rc %d" % p.returncode)
            compare(d, model, touched, r, get_max)
        for nm, tok in list(windows.items()):
            if op(["delayed", "end", d, tok]).returncode != 0:
                raise Diff("final END rc != 0")
        fails = r.sample(range(noss), tol)
        for f in fails:
            if op(["fail", d, "--oss", str(f)]).returncode != 0:
                raise Diff("fail %d" % f)
        compare(d, model, [], r, get_max)
        for f in fails:
            q = op(["rebuild", d, "--oss", str(f)])
            if q.returncode != 0:
                raise Diff("rebuild %d rc %d" % (f, q.returncode))
            compare(d, model, [], r, get_max)
        s = op(["scrub", d])
        if s.returncode != 0:
            raise Diff("scrub rc %d" % s.returncode)
    except Diff as e:
        print("DIFFERENCE %s %s unit %d seed %d: %s" % (code, path, unit, seed, e), flush=True)
        for l in LOG[-40:]:
            if not l[0].startswith(("get", "read", "ls")):
                print("   ", l, flush=True)
        print("   store kept at %s" % d, flush=True)
        sys.exit(1)
    print("DONE %s %s unit %d seed %d: %d steps, files %s, failed+rebuilt %s" % (
        code, path, unit, seed, steps, {n: len(c) for n, c in model.items()}, fails), flush=True)
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
