#!/usr/bin/env python3
"""Several `exaraid store` processes on one store at once, some killed -9 (review tool, not CI).

Per round: N writer processes, each writing its own disjoint region of file "f" (and one
`put` of its own file "p<i>"), started together with readers (`get`, `status`, `scrub`), a
random subset killed -9 after a random delay. Then: every write that exited 0 reads back
exactly; a killed write's region holds, byte for byte, either the old or the new bytes; every
put that exited 0 reads exactly, a killed put reads old or new whole (put is atomic) or is
absent if it never existed; no process printed a panic; scrub clean; with the code's tolerance
of OSSs failed everything still reads the same.

Usage: scripts/multiproc-kill.py CODE OSS UNIT PATH ROUNDS [SEED]
  CODE: raid5 | raid6 | rs:K:M | dcode:P | ... (as crash-geom.py). EXARAID=..., MP_DIR=/tmp/s6r-mp
Written by the session-6 reviewer (s6r).
"""
import os, random, subprocess, sys, shutil, json, time

E = os.environ.get("EXARAID", "target/release/exaraid")
ROOT = os.environ.get("MP_DIR", "/tmp/s6r-mp")


def code_args(spec):
    p = spec.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[2])
    if p[0] in ("raid5", "raid6"):
        return ["--code", p[0]] + (["--k", p[1]] if len(p) > 1 else []), 1 if p[0] == "raid5" else 2
    return ["--code", p[0], "--p", p[1] if len(p) > 1 else "5"], 2


def run(args, inp=b""):
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True)


def stdin_file(d, data):
    """stdin of a process: an unlinked temporary file holding `data`."""
    import tempfile
    t = tempfile.TemporaryFile(dir=os.path.dirname(d))
    t.write(data)
    t.seek(0)
    return t


def main():
    code, noss, unit, path, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    rng = random.Random(seed)
    cargs, tol = code_args(code)
    d = os.path.join(ROOT, "%s-%d-%d-%s" % (code.replace(":", "_"), noss, unit, path))
    shutil.rmtree(d, ignore_errors=True)
    p = run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", path] + cargs)
    assert p.returncode == 0, p.stderr
    nw = 6
    region = unit * 3 + 1001
    f = bytearray(rng.randbytes(region * nw))
    assert run(["put", d, "f"], bytes(f)).returncode == 0
    puts = {}
    problems = 0
    for rnd in range(rounds):
        procs = []
        news = []
        for i in range(nw):
            off = i * region + rng.randrange(0, region // 2)
            ln = rng.randrange(1, region - (off - i * region) + 1)
            data = rng.randbytes(ln)
            pr = subprocess.Popen([E, "store", "write", d, "f", "--offset", str(off)], stdin=stdin_file(d, data),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            procs.append(("write", pr, data, off))
        for i in range(3):
            data = rng.randbytes(rng.randrange(0, unit * 5))
            pr = subprocess.Popen([E, "store", "put", d, "p%d" % i], stdin=stdin_file(d, data),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            procs.append(("put", pr, data, i))
        for what in (["get", d, "f"], ["status", d], ["scrub", d], ["ls", d]):
            pr = subprocess.Popen([E, "store"] + what, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            procs.append(("reader", pr, None, what[0]))
        victims = rng.sample(range(len(procs)), rng.randrange(0, 5))
        time.sleep(rng.uniform(0, 0.15))
        for v in victims:
            try:
                procs[v][1].kill()
            except ProcessLookupError:
                pass
        results = []
        for kind, pr, data, arg in procs:
            out, err = pr.communicate()
            rc = pr.returncode
            if b"panicked" in err:
                print("round %d PANIC %s: %s" % (rnd, kind, err[-500:]))
                problems += 1
            if rc not in (0, -9):
                # A reader may fail on a file not there yet; a scrub may see work in flight? no: lock.
                print("round %d %s %s rc %d: %s" % (rnd, kind, arg, rc, err.decode(errors="replace")[-300:].strip()))
            results.append((kind, rc, data, arg))
        g = run(["get", d, "f"])
        if g.returncode != 0:
            print("round %d get f rc %d: %s" % (rnd, g.returncode, g.stderr[-300:]))
            problems += 1
            break
        got = g.stdout
        if len(got) != len(f):
            print("round %d: size %d != %d" % (rnd, len(got), len(f)))
            problems += 1
        for kind, rc, data, arg in results:
            if kind == "write":
                off = arg
                new = got[off:off + len(data)]
                if rc == 0:
                    if new != data:
                        print("round %d LOST ACKED write @%d+%d" % (rnd, off, len(data)))
                        problems += 1
                else:
                    for j in range(len(data)):
                        if new[j] != data[j] and new[j] != f[off + j]:
                            print("round %d killed write @%d+%d: byte %d neither old nor new" % (rnd, off, len(data), j))
                            problems += 1
                            break
                f[off:off + len(data)] = new
            if kind == "put":
                name = "p%d" % arg
                q = run(["get", d, name])
                old = puts.get(name)
                if rc == 0:
                    if q.returncode != 0 or q.stdout != data:
                        print("round %d LOST ACKED put %s rc %d" % (rnd, name, q.returncode))
                        problems += 1
                    puts[name] = data
                else:
                    if q.returncode == 0 and q.stdout == data:
                        puts[name] = data
                    elif old is None and q.returncode != 0:
                        pass
                    elif q.returncode == 0 and q.stdout == old:
                        pass
                    else:
                        print("round %d killed put %s: neither old nor new (rc %d, %d bytes)" % (rnd, name, q.returncode, len(q.stdout)))
                        problems += 1
        s = run(["scrub", d])
        if s.returncode != 0:
            print("round %d scrub rc %d: %s %s" % (rnd, s.returncode, s.stdout[-300:], s.stderr[-300:]))
            problems += 1
        print("round %d: %d killed, ok so far (%d problems)" % (rnd, len(victims), problems), flush=True)
    # Degraded check at the end.
    fails = rng.sample(range(noss), tol)
    for o in fails:
        assert run(["fail", d, "--oss", str(o)]).returncode == 0
    g = run(["get", d, "f"])
    if g.returncode != 0 or g.stdout != bytes(f):
        print("degraded %s: get f rc %d, wrong %s" % (fails, g.returncode, g.stdout != bytes(f)))
        problems += 1
    for name, data in puts.items():
        q = run(["get", d, name])
        if q.returncode != 0 or q.stdout != data:
            print("degraded %s: get %s rc %d wrong" % (fails, name, q.returncode))
            problems += 1
    print("multiproc-kill %s %d %d %s: %d rounds, %d problems" % (code, noss, unit, path, rounds, problems))
    shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
