#!/usr/bin/env python3
"""Review s14r tool (not CI): several `exaraid store` processes on one store at once, a random
subset killed -9, with more kinds of command than scripts/multiproc-kill.py: writers of
disjoint regions of "f", put AND rm of "p<i>", `flush`, `fail --oss X` followed (in the same
round, another process) by `online --oss X`, and on delayed stores a window on "w" (start,
writes, end). After each round: a pending fail is taken back with `online` (run again if
killed, as the guide says), then every acknowledged byte is checked (killed writes: each byte
old or new; put/rm: old, new or absent as allowed), no panic, scrub clean.
Usage: s14r-multiproc-mix.py CODE OSS UNIT PATH ROUNDS [SEED]   (CODE as multiproc-kill.py)
Env: EXARAID, MP_DIR (/dev/shm/s14r-mp), BACK=online|rebuild (how a failed OSS comes back)."""
import os, random, subprocess, sys, shutil, time, tempfile
E = os.environ.get("EXARAID", "exaraid"); ROOT = os.environ.get("MP_DIR", "/dev/shm/s14r-mp")

def code_args(spec):
    p = spec.split(":")
    if p[0] == "rs": return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[2])
    if p[0] in ("raid5", "raid6"): return ["--code", p[0]], 1 if p[0] == "raid5" else 2
    return ["--code", p[0], "--p", p[1] if len(p) > 1 else "5"], 2

def run(args, inp=b""):
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, timeout=600)

def spawn(args, data=None):
    if data is None: stdin = subprocess.DEVNULL
    else:
        stdin = tempfile.TemporaryFile(dir=ROOT); stdin.write(data); stdin.seek(0)
    return subprocess.Popen([E, "store"] + args, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE)

def main():
    code, noss, unit, path, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    rng = random.Random(seed); cargs, tol = code_args(code)
    os.makedirs(ROOT, exist_ok=True)
    d = os.path.join(ROOT, "s-%d" % seed); shutil.rmtree(d, ignore_errors=True)
    assert run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", path] + cargs).returncode == 0
    nw = 4; region = unit * 3 + 1001
    f = bytearray(rng.randbytes(region * nw)); assert run(["put", d, "f"], bytes(f)).returncode == 0
    w = bytearray(); puts = {}; problems = 0
    def bad(msg):
        nonlocal problems; problems += 1; print(msg, flush=True)
    for rnd in range(rounds):
        procs = []
        for i in range(nw):
            off = i * region + rng.randrange(0, region // 2); ln = rng.randrange(1, region - (off - i * region) + 1)
            data = rng.randbytes(ln); procs.append(("write", spawn(["write", d, "f", "--offset", str(off)], data), data, off))
        for i in range(3):
            if rng.random() < 0.3: procs.append(("rm", spawn(["rm", d, "p%d" % i]), None, i))
            else:
                data = rng.randbytes(rng.randrange(0, unit * 5)); procs.append(("put", spawn(["put", d, "p%d" % i], data), data, i))
        if rng.random() < 0.5: procs.append(("flush", spawn(["flush", d]), None, None))
        victim_oss = None
        if rng.random() < 0.5:
            victim_oss = rng.randrange(noss)
            procs.append(("fail", spawn(["fail", d, "--oss", str(victim_oss)]), None, victim_oss))
            time.sleep(0.02)
            back = os.environ.get("BACK", "online")  # BACK=rebuild: a rebuild in place races the writers instead
            procs.append(("online", spawn([back, d, "--oss", str(victim_oss)]), None, victim_oss))
        wtok = None
        if path == "delayed":
            st = run(["delayed", "start", d, "w"])
            if st.returncode == 0:
                wtok = st.stdout.decode().strip()
                woff = rng.randrange(0, unit * 4); wdata = rng.randbytes(rng.randrange(1, unit * 2))
                procs.append(("wwrite", spawn(["write", d, "w", "--offset", str(woff)], wdata), wdata, woff))
            else: bad("round %d start rc %d: %s" % (rnd, st.returncode, st.stderr[-300:]))
        for what in (["get", d, "f"], ["status", d], ["ls", d]):
            procs.append(("reader", spawn(what), None, what[0]))
        victims = rng.sample(range(len(procs)), rng.randrange(0, 4))
        time.sleep(rng.uniform(0, 0.2))
        for v in victims:
            try: procs[v][1].kill()
            except ProcessLookupError: pass
        results = []
        for kind, pr, data, arg in procs:
            out, err = pr.communicate(); rc = pr.returncode
            if b"panicked" in err: bad("round %d PANIC %s: %s" % (rnd, kind, err[-500:]))
            if rc not in (0, -9) and not (kind == "online" and (b"not failed" in err or b"is not" in err)):
                print("round %d %s %s rc %d: %s" % (rnd, kind, arg, rc, err.decode(errors="replace")[-400:].strip()), flush=True)
            results.append((kind, rc, data, arg))
        if wtok:
            e = run(["delayed", "end", d, wtok])
            if e.returncode != 0: bad("round %d end rc %d: %s" % (rnd, e.returncode, e.stderr[-300:]))
        # Take back any OSS still failed (a killed online, an online that ran before its fail).
        st = run(["status", d, "--json"]).stdout
        import json
        try: js = json.loads(st)
        except Exception: bad("round %d status json: %r" % (rnd, st[:200])); break
        for o in js["oss"]:
            if not o["healthy"]:
                on = run([os.environ.get("BACK", "online"), d, "--oss", str(o["index"])])
                if on.returncode != 0:
                    print("round %d online %d rc %d: %s" % (rnd, o["index"], on.returncode, on.stderr[-300:]), flush=True)
                    rb = run(["rebuild", d, "--oss", str(o["index"])])
                    if rb.returncode != 0: bad("round %d rebuild rc %d: %s" % (rnd, rb.returncode, rb.stderr[-300:]))
        g = run(["get", d, "f"])
        if g.returncode != 0: bad("round %d get f rc %d: %s" % (rnd, g.returncode, g.stderr[-300:])); break
        got = g.stdout
        if len(got) != len(f): bad("round %d: size %d != %d" % (rnd, len(got), len(f)))
        for kind, rc, data, arg in results:
            if kind == "write":
                new = got[arg:arg + len(data)]
                if rc == 0 and new != data: bad("round %d LOST ACKED write @%d+%d" % (rnd, arg, len(data)))
                elif rc != 0:
                    for j in range(len(data)):
                        if new[j] != data[j] and new[j] != f[arg + j]:
                            bad("round %d killed write @%d+%d: byte %d neither" % (rnd, arg, len(data), j)); break
                f[arg:arg + len(data)] = new
            elif kind == "wwrite":
                end = arg + len(data)
                ww = run(["get", d, "w"])
                if ww.returncode != 0: bad("round %d get w rc %d %s" % (rnd, ww.returncode, ww.stderr[-300:])); continue
                x = ww.stdout
                exp_old = bytes(w[arg:end]).ljust(len(data), b"\0")
                seg = x[arg:end]
                if rc == 0 and seg != data: bad("round %d LOST ACKED window write @%d+%d" % (rnd, arg, len(data)))
                elif rc != 0 and any(seg[j] != data[j] and seg[j] != exp_old[j] for j in range(len(seg))):
                    bad("round %d killed window write neither" % rnd)
                w = bytearray(x)
            elif kind in ("put", "rm"):
                name = "p%d" % arg; q = run(["get", d, name]); old = puts.get(name, None)
                now = q.stdout if q.returncode == 0 else None
                if q.returncode != 0 and b"no file" not in q.stderr: bad("round %d get %s rc %d %s" % (rnd, name, q.returncode, q.stderr[-300:])); continue
                if kind == "put":
                    ok = now == data if rc == 0 else now in (data, old)
                else:
                    ok = now is None if rc == 0 else now in (None, old)
                # Another process of this round may not touch p<i>: only one op per name per round.
                if not ok: bad("round %d %s %s rc %d: now %s" % (rnd, kind, name, rc, "absent" if now is None else "%d bytes" % len(now)))
                puts[name] = now
        s = run(["scrub", d])
        if s.returncode != 0: bad("round %d scrub rc %d: %s %s" % (rnd, s.returncode, s.stdout[-400:], s.stderr[-300:]))
        print("round %d: %d killed (%s), ran %s, %d problems" % (rnd, len(victims), ",".join(procs[v][0] for v in victims), ",".join("%s:%s" % (k, rc) for k, rc, _, _ in results if k in ("fail", "online", "flush", "rm")), problems), flush=True)
    fails = rng.sample(range(noss), tol)
    for o in fails: run(["fail", d, "--oss", str(o)])
    g = run(["get", d, "f"])
    if g.returncode != 0 or g.stdout != bytes(f): bad("degraded %s: get f rc %d wrong %s" % (fails, g.returncode, g.stdout != bytes(f)))
    for name, data in puts.items():
        q = run(["get", d, name])
        if data is not None and (q.returncode != 0 or q.stdout != data): bad("degraded get %s rc %d wrong" % (name, q.returncode))
    print("DONE mix %s %d %d %s: %d rounds, seed %d, %d problems" % (code, noss, unit, path, rounds, seed, problems), flush=True)
    if problems == 0: shutil.rmtree(d, ignore_errors=True)

main()
