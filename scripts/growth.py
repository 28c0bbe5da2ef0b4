#!/usr/bin/env python3
"""Measurement tool (s8e, not CI): how the store's metadata (the JSON `state` checkpoint and
the `journal`) grows with many small files and many delayed windows, through the CLI.

Usage: EXARAID=path/to/exaraid GROWTH_DIR=/tmp/you-growth python3 scripts/growth.py \
           files PATH NFILES [EVERY]      # NFILES puts of 0..4,096 bytes each, on PATH
       EXARAID=... GROWTH_DIR=... python3 scripts/growth.py windows NWINDOWS [EVERY]
  PATH: rmw | wcl | delayed (the store: raid6 4+2 over 6 OSSs, 4 KiB stripe unit).
  `windows`: a delayed store of 10 files of 64 KiB; each window is START on one of them
  (in turn), a write of 1..8,192 bytes inside it, END.

Every EVERY operations (default 1,000 files, 100 windows) it prints the sizes of `state`
and `journal` (after the command closed the store: its checkpoint), the bytes of `state`
per file, `status --json`'s bytes_waiting_parity, and the mean wall time of the last 20
commands (the state is read and written whole by every command: its cost grows with it).
Every file is read back at the end (exit 1 on a wrong byte).
"""
import json, os, random, shutil, subprocess, sys, time

EX = os.environ.get("EXARAID", "exaraid")
ROOT = os.environ.get("GROWTH_DIR", "/tmp/growth")


def run(args, stdin=b""):
    p = subprocess.run([EX, "store"] + args, input=stdin, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"exaraid store {' '.join(args[:4])} rc={p.returncode}: {p.stderr.decode(errors='replace')[:400]}")
    return p.stdout


def init(path):
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    store = os.path.join(ROOT, "s")
    run(["init", store, "--oss", "6", "--code", "raid6", "--k", "4", "--stripe-unit", "4096",
         "--write-path", path])
    return store


def sizes(store, n, what, recent_s):
    state = os.path.getsize(os.path.join(store, "state"))
    journal = os.path.getsize(os.path.join(store, "journal"))
    st = json.loads(run(["status", store, "--json"]))
    per = state / n if n else 0
    mean_ms = 1000 * sum(recent_s) / len(recent_s) if recent_s else 0
    print(f"{what} {n}: state {state} B ({per:.0f} B per {what.rstrip('s')}), journal {journal} B, "
          f"bytes_waiting_parity {st.get('bytes_waiting_parity')}, last 20 commands {mean_ms:.0f} ms each",
          flush=True)


def files(path, nfiles, every):
    rng = random.Random(1)
    store = init(path)
    model = {}
    recent = []
    sizes(store, 0, "files", recent)
    for i in range(nfiles):
        name = f"f{i:06d}"
        data = rng.randbytes(rng.randint(0, 4096))
        t = time.time()
        run(["put", store, name], data)
        recent = (recent + [time.time() - t])[-20:]
        model[name] = data
        if (i + 1) % every == 0:
            sizes(store, i + 1, "files", recent)
    check(store, model)


def windows(nwindows, every):
    rng = random.Random(2)
    store = init("delayed")
    model = {}
    for i in range(10):
        model[f"w{i}"] = bytearray(rng.randbytes(65536))
        run(["put", store, f"w{i}"], bytes(model[f"w{i}"]))
    recent = []
    sizes(store, 0, "windows", recent)
    for i in range(nwindows):
        name = f"w{i % 10}"
        t = time.time()
        token = run(["delayed", "start", store, name]).decode().strip()
        off = rng.randint(0, 65536 - 8192)
        data = rng.randbytes(rng.randint(1, 8192))
        run(["write", store, name, "--offset", str(off)], data)
        run(["delayed", "end", store, token])
        recent = (recent + [(time.time() - t) / 3])[-20:]
        model[name][off:off + len(data)] = data
        if (i + 1) % every == 0:
            sizes(store, i + 1, "windows", recent)
    check(store, {n: bytes(d) for n, d in model.items()})


def check(store, model):
    wrong = [n for n, d in model.items() if run(["get", store, n]) != d]
    print(f"read back {len(model)} files: {len(wrong)} wrong {wrong[:3]}", flush=True)
    if wrong:
        sys.exit(1)


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == "files":
        every = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
        files(sys.argv[2], int(sys.argv[3]), every)
    elif len(sys.argv) >= 3 and sys.argv[1] == "windows":
        every = int(sys.argv[3]) if len(sys.argv) > 3 else 100
        windows(int(sys.argv[2]), every)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
