#!/usr/bin/env python3
"""s26e: loop store_crash.rs `wcl_raid6_survives_kill_9_inside_recovery_after_random_crashes`.

The same scene as the test (raid6 3+2, WCL, 5 OSSs, 4 KiB stripe unit; a `store torture`
writer SIGKILLed 5..25 ms after its spawn, then recovery killed 0..=3 times at a random
`settle-torn-block` / `settle-element` / `settle-stripe` pass, then an open that finishes
it), driven through the CLI so many seeds run in a loop, under whatever load the machine
has (run several at once, or beside busy loops, to add load). Each round checks what the
test checks: every acknowledged byte reads back (bytes of the write in flight old or new),
scrub clean. A failing round keeps three copies of the store: after the writer's kill
(`a-writer-killed`), after the recovery kills (`b-recovery-killed`), and as the failing
read left it (`c-after`), with the commands' output, under KEEP/seed-S-round-R.

Usage: s26e-crash-recovery-loop.py EXARAID_BIN KEEP_DIR SEED_FIRST SEED_COUNT ROUNDS
Env (s27r): INIT_ARGS, `store init` arguments but the write path (default the scene's raid6 3+2, 4 KiB).
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

M64 = (1 << 64) - 1
SPAN_BYTES = 96 * 1024
WRITE_BYTES_MAX = 20 * 1024
FILE = "torture"
POINTS = ["settle-torn-block", "settle-element", "settle-stripe"]


def mix(x):
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def write_of(seed, index):
    """`exaraid_store::torture::write_of`."""
    h = mix(seed ^ mix(index))
    n = 1 + mix(h) % WRITE_BYTES_MAX
    off = mix(h ^ 1) % (SPAN_BYTES - n)
    x = h | 1
    out = bytearray(n)
    for i in range(n):
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        out[i] = x & 0xFF
    return off, bytes(out)


class Rng:
    """store_crash.rs's `Rng`."""

    def __init__(self, seed):
        self.s = seed | 1

    def below(self, n):
        self.s ^= (self.s << 13) & M64
        self.s ^= self.s >> 7
        self.s ^= (self.s << 17) & M64
        return self.s % n


def run(exe, args, env=None, input_bytes=b""):
    e = dict(os.environ)
    e.pop("EXARAID_KILL_AT", None)
    if env:
        e.update(env)
    return subprocess.run([exe] + args, env=e, input=input_bytes, capture_output=True)


def kill_writer_after(exe, d, seed, nxt, delay_us):
    p = subprocess.Popen(
        [exe, "store", "torture", d, "--seed", str(seed), "--start", str(nxt), "--count", "100000"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(delay_us / 1e6)
    p.send_signal(signal.SIGKILL)
    out, _ = p.communicate()
    acks = [int(l[4:]) for l in out.decode().splitlines() if l.startswith("ack ")]
    acked_end = (max(acks) + 1) if acks else nxt
    return acked_end, out.decode()


def snapshot(src, dst):
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)


def trial(exe, keep, seed, rounds, log):
    tmp = tempfile.mkdtemp(prefix="s26e-loop-", dir="/dev/shm")
    d = os.path.join(tmp, "store")
    snap_a = os.path.join(tmp, "a")
    snap_b = os.path.join(tmp, "b")
    try:
        # s27r: INIT_ARGS (e.g. "--oss 5 --code xcode --p 5 --stripe-unit 16384") replaces
        # the scene's code and unit (WCL kept), to run the loop on array codes too.
        init = os.environ.get("INIT_ARGS", "--oss 5 --code raid6 --k 3 --stripe-unit 4096").split()
        r = run(exe, ["store", "init", d] + init + ["--write-path", "wcl"])
        assert r.returncode == 0, r.stderr
        model = bytearray()
        nxt = 0
        rng = Rng(seed)
        recovery_kills = 0
        mid_write = 0
        for rnd in range(rounds):
            acked_end, wout = kill_writer_after(exe, d, seed, nxt, 5000 + rng.below(20000))
            for i in range(nxt, acked_end):
                off, data = write_of(seed, i)
                if len(model) < off + len(data):
                    model.extend(b"\0" * (off + len(data) - len(model)))
                model[off:off + len(data)] = data
            mid_write += f"start {acked_end}" in wout
            fl_off, fl_data = write_of(seed, acked_end)
            fl_end = fl_off + len(fl_data)
            snapshot(d, snap_a)
            kills = []
            for _ in range(rng.below(4)):
                point = POINTS[rng.below(3)]
                n = 1 + rng.below(12)
                r = run(exe, ["store", "ls", d], env={"EXARAID_KILL_AT": f"{point}:{n}"})
                if r.returncode == 0:
                    kills.append(f"{point}:{n} finished")
                    break
                if r.returncode != -9:
                    kills.append(f"{point}:{n} FAILED rc={r.returncode} {r.stderr.decode()}")
                    break
                kills.append(f"{point}:{n} killed")
                recovery_kills += 1
            snapshot(d, snap_b)
            problem = None
            r = run(exe, ["store", "ls", d])
            if r.returncode != 0:
                problem = f"ls after kills failed: {r.stderr.decode()}"
            content = b""
            if problem is None and FILE in r.stdout.decode():
                g = run(exe, ["store", "get", d, FILE])
                if g.returncode != 0:
                    problem = f"get failed rc={g.returncode}: {g.stderr.decode()}"
                content = g.stdout
            if problem is None:
                if not (len(content) == len(model) or len(content) == max(len(model), fl_end)):
                    problem = f"file is {len(content)} bytes, acknowledged {len(model)}"
                else:
                    for b, got in enumerate(content):
                        old = model[b] if b < len(model) else 0
                        if fl_off <= b < fl_end:
                            if got != old and got != fl_data[b - fl_off]:
                                problem = f"WRONG in-flight byte {b}: {got} old {old}"
                                break
                        elif got != old:
                            problem = f"WRONG acknowledged byte {b}: {got} was {old}"
                            break
            if problem is None:
                s = run(exe, ["store", "scrub", d])
                if s.returncode != 0:
                    problem = f"scrub rc={s.returncode}: {s.stdout.decode()} {s.stderr.decode()}"
            if problem is None:
                st = run(exe, ["store", "status", d])
                txt = st.stdout.decode()
                if st.returncode != 0 or "lost" in txt.lower() and " 0 " not in txt:
                    pass  # status wording varies; get/scrub above are the checks
            if problem is not None:
                where = os.path.join(keep, f"seed-{seed:#x}-round-{rnd}")
                os.makedirs(where, exist_ok=True)
                snapshot(snap_a, os.path.join(where, "a-writer-killed"))
                snapshot(snap_b, os.path.join(where, "b-recovery-killed"))
                snapshot(d, os.path.join(where, "c-after"))
                with open(os.path.join(where, "what.txt"), "w") as f:
                    f.write(f"seed {seed:#x} round {rnd}\nacked_end {acked_end} next was {nxt}\n")
                    f.write(f"in flight: write {acked_end} offset {fl_off} len {len(fl_data)}\n")
                    f.write(f"recovery kills: {kills}\nproblem: {problem}\n")
                    f.write(f"writer output:\n{wout}\n")
                log(f"FAIL seed {seed:#x} round {rnd}: {problem[:400]} kills={kills}")
                return False, rnd + 1, recovery_kills
            model = bytearray(content)
            nxt = acked_end + 1
        log(f"seed {seed:#x}: {nxt} writes issued, {mid_write} writer kills inside a started write")
        return True, rounds, recovery_kills
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    exe, keep, first, count, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3], 0), int(sys.argv[4]), int(sys.argv[5])
    os.makedirs(keep, exist_ok=True)
    logf = open(os.path.join(keep, f"log-{first:#x}.txt"), "a")

    def log(s):
        line = f"{time.strftime('%H:%M:%S')} {s}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    fails = 0
    total_rounds = 0
    for seed in range(first, first + count):
        ok, n, rk = trial(exe, keep, seed, rounds, log)
        total_rounds += n
        fails += not ok
        log(f"seed {seed:#x}: {'ok' if ok else 'FAIL'} rounds {n} recovery kills {rk} (total rounds {total_rounds}, fails {fails})")


if __name__ == "__main__":
    main()
