#!/usr/bin/env python3
"""Review tool (s7r, not CI): long-lived use of one store through the CLI.

Usage: EXARAID=path/to/exaraid LL_DIR=/tmp/you-ll python3 scripts/long-lived.py \
           CODE NOSS UNIT PATH [NFILES] [CYCLES] [SEED]
  CODE: "raid6 --k 4", "rs --k 4 --m 2", "dcode --p 5", ...; PATH: rmw | wcl | delayed.

What it does, checking every file against an in-memory model as it goes:
 1. init, then NFILES (default 1000) small puts (0..20,000 bytes) with odd names (spaces,
    quotes, backslashes, tabs, newlines, unicode, leading dash via `--`, 1,024 bytes long);
    `ls --json` must list exactly the model's names and sizes.
 2. CYCLES (default 6) of: fail the SAME OSS (0) again, degraded writes/puts into ~20 files
    (on delayed: also windows on some files, END after the fail), get a sample, rebuild
    (alternately in place and `--to` a new directory), `scrub --repair`, scrub must be clean
    (exit 0); every 2nd cycle also fail+rebuild --to a second OSS; every file read back at
    the end of each cycle. State / journal / OSS sizes are printed per cycle (growth).
 3. rm of half the files, ls, every file read; then rm of all, ls empty, sizes.
Prints "PROBLEM ..." for each finding; exit 1 if any.
"""
import json, os, random, shutil, subprocess, sys, time

EX = os.environ.get("EXARAID", "exaraid")
ROOT = os.environ.get("LL_DIR", "/tmp/s7r-ll")
problems = 0


def run(args, stdin=b"", ok=(0,)):
    p = subprocess.run([EX, "store"] + args, input=stdin, capture_output=True)
    if p.returncode not in ok:
        problem(f"{' '.join(repr(a) for a in args[:4])} rc={p.returncode}: {p.stderr.decode(errors='replace')[:400]}")
    return p


def problem(msg):
    global problems
    problems += 1
    print("PROBLEM", msg, flush=True)


def du(path):
    total = 0
    for dp, _, fs in os.walk(path):
        for f in fs:
            try:
                st = os.lstat(os.path.join(dp, f))
                total += st.st_blocks * 512
            except FileNotFoundError:
                pass
    return total


def sizes(store, oss_dirs):
    s = os.path.getsize(os.path.join(store, "state"))
    j = os.path.getsize(os.path.join(store, "journal"))
    ext = sum(os.path.getsize(os.path.join(d, f)) for d in oss_dirs for f in ("exaraid-extents.json", "exaraid-extents.log") if os.path.exists(os.path.join(d, f)))
    nobj = sum(len(os.listdir(os.path.join(d, "objects"))) for d in oss_dirs if os.path.isdir(os.path.join(d, "objects")))
    return f"state {s} B, journal {j} B, extents files {ext} B, object files {nobj}, OSS disk use {sum(du(d) for d in oss_dirs) >> 10} KiB"


def odd_name(rng, i):
    pool = [" ", "\t", "\n", '"', "'", "\\", "ü", "∂", "%", "*", "?", "$", "`", "#", ";", "&", "|", "(", "\x7f", "日本"]
    kind = i % 7
    if kind == 0:
        return f"plain{i}"
    if kind == 1:
        return "".join(rng.choice(pool) for _ in range(rng.randint(1, 6))) + str(i)
    if kind == 2:
        return f"-dash{i}"
    if kind == 3:
        return f"dir/like/{i}"
    if kind == 4:
        return ("L" * 1020 + str(i))[-1024:]
    if kind == 5:
        return f".{i}."
    return f"x {i} \\t {i}"


def name_args(name):
    return ["--", name] if name.startswith("-") else [name]


def main():
    code, noss, unit, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    nfiles = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
    cycles = int(sys.argv[6]) if len(sys.argv) > 6 else 6
    seed = int(sys.argv[7]) if len(sys.argv) > 7 else 1
    rng = random.Random(seed)
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    store = os.path.join(ROOT, "s")
    run(["init", store, "--oss", str(noss), "--code"] + code.split() + ["--stripe-unit", str(unit), "--write-path", path])
    oss_dirs = [os.path.join(store, f"oss-{i}") for i in range(noss)]
    model = {}
    t0 = time.time()
    for i in range(nfiles):
        name = odd_name(rng, i)
        data = rng.randbytes(rng.choice([0, 1, 100, 4095, 4096, 4097, rng.randint(0, 20000)]))
        p = run(["put", store] + name_args(name), data)
        if p.returncode == 0:
            model[name] = bytearray(data)
    print(f"{len(model)} puts in {time.time() - t0:.1f} s; {sizes(store, oss_dirs)}", flush=True)

    def check_ls(what):
        p = run(["ls", store, "--json"])
        if p.returncode:
            return
        got = {e["name"]: e["size_bytes"] for e in json.loads(p.stdout)}
        want = {n: len(d) for n, d in model.items()}
        if got != want:
            missing = set(want) - set(got)
            extra = set(got) - set(want)
            wrong = [n for n in set(got) & set(want) if got[n] != want[n]]
            problem(f"{what}: ls differs: missing {list(missing)[:3]} extra {list(extra)[:3]} wrong size {wrong[:3]}")

    def check_file(name, what):
        p = run(["get", store] + name_args(name))
        if p.returncode == 0 and p.stdout != bytes(model[name]):
            problem(f"{what}: get {name!r} WRONG BYTES exit 0 (len {len(p.stdout)} vs {len(model[name])})")

    def check_all(what):
        t = time.time()
        for n in list(model):
            check_file(n, what)
        print(f"  {what}: {len(model)} files read in {time.time() - t:.1f} s", flush=True)

    check_ls("after puts")
    check_all("after puts")
    p = run(["status", store, "--json"])
    new_dirs = 0
    for c in range(cycles):
        t = time.time()
        for victim in ([0, 1] if c % 2 == 1 else [0]):
            run(["fail", store, "--oss", str(victim)])
            names = rng.sample(sorted(model), min(20, len(model)))
            tokens = []
            for n in names:
                if n not in model:
                    continue
                op = rng.random()
                if path == "delayed" and op < 0.3 and len(tokens) < 5:
                    p = run(["delayed", "start", store] + name_args(n))
                    if p.returncode == 0:
                        tokens.append(p.stdout.decode().strip())
                if op < 0.6:
                    off = rng.randint(0, len(model[n]) + 5000)
                    data = rng.randbytes(rng.randint(1, 9000))
                    in_window = path == "delayed" and tokens and op < 0.3
                    p = run(["write", store, "--offset", str(off)] + name_args(n), data, ok=(0, 1) if in_window else (0,))
                    if p.returncode == 1:
                        print(f"  refused window write on {n!r}: {p.stderr.decode(errors='replace')[:200]}")
                    if p.returncode == 0:
                        m = model[n]
                        if len(m) < off:
                            m.extend(b"\0" * (off - len(m)))
                        m[off:off + len(data)] = data
                elif op < 0.9 and not tokens:
                    data = rng.randbytes(rng.randint(0, 12000))
                    p = run(["put", store] + name_args(n), data)
                    if p.returncode == 0:
                        model[n] = bytearray(data)
                else:
                    if not tokens:
                        p = run(["rm", store] + name_args(n))
                        if p.returncode == 0:
                            del model[n]
            for tok in tokens:
                run(["delayed", "end", store, tok])
            for n in rng.sample(sorted(model), min(30, len(model))):
                check_file(n, f"cycle {c} degraded (OSS {victim} failed)")
            if rng.random() < 0.5:
                new_dirs += 1
                run(["rebuild", store, "--oss", str(victim), "--to", os.path.join(ROOT, f"new{new_dirs}")])
                oss_dirs[victim] = os.path.join(ROOT, f"new{new_dirs}")
            else:
                run(["rebuild", store, "--oss", str(victim)])
            run(["scrub", store, "--repair"])
            p = run(["scrub", store, "--json"])
            if p.returncode == 0:
                r = json.loads(p.stdout)
                if r.get("corrupt_elements") or r.get("parity_mismatches") or r.get("unrepairable"):
                    problem(f"cycle {c}: scrub json not clean: {str(r)[:300]}")
        st = run(["status", store, "--json"])
        if st.returncode == 0:
            s = json.loads(st.stdout)
            bad = [o["index"] for o in s["oss"] if not o["healthy"]]
            if bad or s["lost_ranges"] or s["open_windows"]:
                problem(f"cycle {c}: status unhealthy {bad} lost {s['lost_ranges'][:2]} windows {s['open_windows'][:2]}")
        check_ls(f"cycle {c}")
        check_all(f"cycle {c}")
        print(f"cycle {c} in {time.time() - t:.1f} s: {len(model)} files; {sizes(store, oss_dirs)}", flush=True)
    # rm half, then all
    t = time.time()
    for n in sorted(model)[::2]:
        if run(["rm", store] + name_args(n)).returncode == 0:
            del model[n]
    print(f"rm half in {time.time() - t:.1f} s; {sizes(store, oss_dirs)}", flush=True)
    check_ls("after rm half")
    check_all("after rm half")
    for n in sorted(model):
        if run(["rm", store] + name_args(n)).returncode == 0:
            del model[n]
    check_ls("after rm all")
    run(["scrub", store])
    print(f"rm all; {sizes(store, oss_dirs)}", flush=True)
    for d in oss_dirs:
        left = os.listdir(os.path.join(d, "objects"))
        if [f for f in left if not f.startswith("18446744073709551615")]:
            problem(f"after rm all: {d}/objects still holds {left[:5]}")
    print(f"DONE problems {problems}", flush=True)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
