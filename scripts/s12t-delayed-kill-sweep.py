#!/usr/bin/env python3
"""Session 12 (s12t): replayable kill sweep of `exaraid store torture --windows` in a delayed
raid5 3+1 store (4 KiB stripe unit), the scene of crates/cli/tests/cli/store_crash.rs
`delayed_windows_survive_kill_9_at_random_points`, with deterministic kill points instead of
a random sleep: each round kills the child at its n-th durable call (scripts/killshim.c,
whole pwrites: what kill -9 leaves) or at the n-th pass of a store kill point
(EXARAID_KILL_AT), n drawn from a seeded rng, then checks what the test checks: every
acknowledged byte, the write in flight old or new, `scrub` clean, `status` with nothing lost.

Usage: s12t-delayed-kill-sweep.py ROUNDS [rng-seed]
       IMAGE=KEEP/round-N s12t-delayed-kill-sweep.py points FIRST LAST
  (the second form: from that saved image every time, kill at n = FIRST..=LAST, one line per
  kill point with a problem and a count of them: the same kill points for two binaries)
Env: EXARAID (binary, default /work/target-s12t/debug/exaraid), SHIM (default
  /tmp/s12t/killshim.so; build: gcc -O2 -shared -fPIC -o /tmp/s12t/killshim.so
  scripts/killshim.c -ldl), KILLAT (a store kill point name instead of the shim, e.g.
  journal-record or write-torn-block), NMAX (largest n drawn, default 400), KEEP (directory:
  a failing round's store image before the kill is copied there, with a replay line),
  FROM (start at this round, with KEEP's image of it: replays one round).
Prints one line per failing round and a DONE line."""
import os, shutil, subprocess, sys, tempfile

M64 = (1 << 64) - 1
SEED = 0x5EED_0003
SPAN = 96 * 1024
WMAX = 20 * 1024
E = os.environ.get("EXARAID", "/work/target-s12t/debug/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s12t/killshim.so")


def mix(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def write_of(seed, i):
    """exaraid_store::torture::write_of"""
    h = mix(seed ^ mix(i))
    n = 1 + mix(h) % WMAX
    off = mix(h ^ 1) % (SPAN - n)
    x = h | 1
    out = bytearray(n)
    for k in range(n):
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        out[k] = x & 0xFF
    return off, bytes(out)


class Rng:
    def __init__(self, s):
        self.s = s | 1

    def below(self, n):
        x = self.s
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        self.s = x
        return x % n


def run(args, env=None, inp=None):
    return subprocess.run([E, "store"] + args, capture_output=True, env=env, input=inp)


def check_round(d, env, nxt, model):
    """Run one killed child from write `nxt` over the store `d` holding `model`; returns
    (problems, content, acked_end, in-flight (offset, len))."""
    r = run(["torture", d, "--seed", str(SEED), "--start", str(nxt), "--count", "24",
             "--windows"], env=env)
    acked = None
    for line in r.stdout.decode().splitlines():
        if line.startswith("ack "):
            acked = int(line[4:])
    acked_end = nxt if acked is None else acked + 1
    model = bytearray(model)
    for i in range(nxt, acked_end):
        off, data = write_of(SEED, i)
        if len(model) < off + len(data):
            model.extend(b"\0" * (off + len(data) - len(model)))
        model[off:off + len(data)] = data
    fo, fdata = write_of(SEED, acked_end)
    fe = fo + len(fdata)
    g = run(["get", d, "torture"])
    problems = []
    content = g.stdout
    if g.returncode != 0:
        if b"No such file" in g.stderr or b"no file" in g.stderr.lower():
            content = b""
        else:
            problems.append("get rc %d: %s" % (g.returncode, g.stderr.decode()[:600]))
    if not problems:
        if len(content) not in (len(model), max(len(model), fe)):
            problems.append("size %d, acked %d" % (len(content), len(model)))
        wrong = []
        for b in range(len(content)):
            old = model[b] if b < len(model) else 0
            got = content[b]
            if fo <= b < fe:
                if got != old and got != fdata[b - fo]:
                    wrong.append(b)
            elif got != old:
                wrong.append(b)
        if wrong:
            problems.append("WRONG: %d bytes, first %d last %d" % (len(wrong), wrong[0], wrong[-1]))
    s = run(["scrub", d])
    if s.returncode != 0:
        problems.append("scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode()[:300]))
    st = run(["status", d])
    for line in st.stdout.decode().splitlines():
        if line.startswith("LOST") or "lost:" in line.lower() and "none" not in line.lower():
            problems.append("status: " + line.strip())
    return problems, content, acked_end, (fo, len(fdata)), r.returncode


def sweep_image(img, first, last):
    killat = os.environ.get("KILLAT")
    with open(os.path.join(img, "model"), "rb") as f:
        model = f.read()
    with open(os.path.join(img, "next")) as f:
        nxt = int(f.read())
    with open(os.path.join(img, "dir")) as f:
        d = f.read().strip()  # the store's own path: the superblock names its OSS directories
    bad = killed = 0
    n = first
    for n in range(first, last + 1):
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(img, "store"), d)
        problems, _, acked_end, (fo, fl), rc = check_round(d, kill_env(killat, n), nxt, model)
        if rc == 0:
            break  # the child finished: no kill point n or later
        killed += 1
        if problems:
            bad += 1
            print("kill %s:%d (writes %d..%d acked, in flight at %d+%d): %s" % (
                killat or "shim", n, nxt, acked_end, fo, fl, " | ".join(problems)), flush=True)
    print("DONE image %s kill points %d..%d: %d killed the child, %d with a problem" % (
        img, first, n, killed, bad), flush=True)


def kill_env(killat, n):
    env = dict(os.environ)
    if killat:
        env["EXARAID_KILL_AT"] = "%s:%d" % (killat, n)
    else:
        env["LD_PRELOAD"] = SHIM
        env["KILLN"] = str(n)
    return env


def main():
    if sys.argv[1] == "points":
        sweep_image(os.environ["IMAGE"], int(sys.argv[2]), int(sys.argv[3]))
        return
    rounds = int(sys.argv[1])
    rng = Rng(int(sys.argv[2], 0) if len(sys.argv) > 2 else 7)
    nmax = int(os.environ.get("NMAX", "400"))
    killat = os.environ.get("KILLAT")
    keep = os.environ.get("KEEP")
    tmp = tempfile.mkdtemp(prefix="s12t-sweep-", dir="/dev/shm")
    d = os.path.join(tmp, "store")
    first = int(os.environ.get("FROM", "0"))
    model = bytearray()
    nxt = 0
    if first:
        img = os.path.join(keep, "round-%d" % first)
        with open(os.path.join(img, "dir")) as f:
            d = f.read().strip()
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(os.path.join(img, "store"), d)
        with open(os.path.join(img, "model"), "rb") as f:
            model = bytearray(f.read())
        with open(os.path.join(img, "next")) as f:
            nxt = int(f.read())
        for _ in range(first):
            rng.below(nmax)
    else:
        r = run(["init", d, "--oss", "4", "--code", "raid5", "--stripe-unit", "4096",
                 "--write-path", "delayed"])
        assert r.returncode == 0, r.stderr
    bad = 0
    for rnd in range(first, rounds):
        pre = os.path.join(tmp, "pre")
        shutil.rmtree(pre, ignore_errors=True)
        shutil.copytree(d, pre)
        model_start, nxt_start = bytes(model), nxt
        n = 1 + rng.below(nmax)
        problems, content, acked_end, (fo, fl), _ = check_round(d, kill_env(killat, n), nxt, model)
        if problems:
            bad += 1
            print("round %d kill %s:%d (writes %d..%d acked, in flight %d at %d+%d): %s" % (
                rnd, killat or "shim", n, nxt, acked_end, acked_end, fo, fl,
                " | ".join(problems)), flush=True)
            if keep:
                img = os.path.join(keep, "round-%d" % rnd)
                shutil.rmtree(img, ignore_errors=True)
                os.makedirs(img)
                shutil.copytree(pre, os.path.join(img, "store"))
                with open(os.path.join(img, "model"), "wb") as f:
                    f.write(model_start)
                with open(os.path.join(img, "next"), "w") as f:
                    f.write(str(nxt_start))
                with open(os.path.join(img, "dir"), "w") as f:
                    f.write(d)
                print("  replay: KEEP=%s FROM=%d %s %d %s; one kill point: IMAGE=%s %s points %d %d" % (
                    keep, rnd, sys.argv[0], rnd + 1, sys.argv[2] if len(sys.argv) > 2 else "7",
                    img, sys.argv[0], n, n), flush=True)
            if any(p.startswith("get rc") for p in problems):
                break  # the store keeps failing; stop here
        model = bytearray(content)
        nxt = acked_end + 1
    print("DONE rounds %d..%d bad %d next %d dir %s" % (first, rounds, bad, nxt, tmp), flush=True)


if __name__ == "__main__":
    main()
