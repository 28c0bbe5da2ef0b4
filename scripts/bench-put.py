#!/usr/bin/env python3
"""Put throughput, side by side: binaries interleaved run by run (issue #4 OPEN 5, s7f).

Usage: bench-put.py RUNS SIZE_MIB NAME=BINARY [NAME=BINARY ...]
Env: BENCH_DIR (scratch dir, default /tmp/bench-put-<pid>), CODE (default "raid6 --k 4"),
     OSS (default 6), UNIT (stripe unit bytes, default 65536), PATHW (default wcl).

Per run and binary, on a fresh store (fsync on, as `put` runs):
  new       `put` of SIZE_MIB to a new name;
  over      `put` of SIZE_MIB over an existing file of the same size without cached bytes;
  over-cached `put` of SIZE_MIB over an existing file with cached bytes (a 5,000-byte
            `write` at offset 1,000 just before: since session 6, s6f, the put settles the
            old content first);
the wall time of the `put` command alone. Prints per binary and case the median MiB/s and
every run, then the ratio of medians against the first binary.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time


def run(binary, args, stdin=None):
    out = subprocess.run([binary, "store"] + args, input=stdin, capture_output=True)
    if out.returncode != 0:
        sys.exit(f"{binary} store {args}: rc {out.returncode}: {out.stderr.decode()}")


def timed_put(binary, store, name, data):
    t0 = time.perf_counter()
    run(binary, ["put", store, name], data)
    return time.perf_counter() - t0


def one_run(binary, base, data):
    store = os.path.join(base, "store")
    shutil.rmtree(store, ignore_errors=True)
    code = os.environ.get("CODE", "raid6 --k 4").split()
    run(binary, ["init", store, "--oss", os.environ.get("OSS", "6"), "--code"] + code
        + ["--stripe-unit", os.environ.get("UNIT", "65536"),
           "--write-path", os.environ.get("PATHW", "wcl")])
    times = {}
    times["new"] = timed_put(binary, store, "a", data)
    times["over"] = timed_put(binary, store, "a", data)
    run(binary, ["write", store, "a", "--offset", "1000"], os.urandom(5000))
    times["over-cached"] = timed_put(binary, store, "a", data)
    shutil.rmtree(store)
    return times


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs, size_mib = int(sys.argv[1]), int(sys.argv[2])
    bins = [a.split("=", 1) for a in sys.argv[3:]]
    base = os.environ.get("BENCH_DIR", f"/tmp/bench-put-{os.getpid()}")
    os.makedirs(base, exist_ok=True)
    data = os.urandom(size_mib << 20)
    results = {name: {} for name, _ in bins}
    for r in range(runs):
        # Interleaved, and the order alternates so neither binary always runs first.
        order = bins if r % 2 == 0 else bins[::-1]
        for name, binary in order:
            for case, secs in one_run(binary, base, data).items():
                results[name].setdefault(case, []).append(size_mib / secs)
        print(f"run {r + 1}/{runs} done", file=sys.stderr)
    shutil.rmtree(base, ignore_errors=True)
    first = bins[0][0]
    for name, _ in bins:
        for case, rates in results[name].items():
            med = statistics.median(rates)
            ratio = med / statistics.median(results[first][case])
            runs_txt = " ".join(f"{x:.0f}" for x in rates)
            print(f"{name:8} {case:12} median {med:7.1f} MiB/s  ({ratio:.2f} x {first})  runs: {runs_txt}")


if __name__ == "__main__":
    main()
