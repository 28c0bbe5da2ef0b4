#!/usr/bin/env python3
"""Review tool (engineer s7s, not CI): many CLI commands at once on one store (they wait for
its lock, --lock-wait-ms), some killed -9 while holding it (kill shim at their n-th durable
call), others waiting, plus `flush`, `get` and `rm`/`put` of a side file. Every acknowledged
write (exit 0) must read back; an unacknowledged one old or new per byte; scrub clean.
Usage: lock-wait-kill.py CODE PATH [ROUNDS]   Env: EXARAID, SHIM, REPRO_DIR."""
import os, random, shutil, subprocess, sys, tempfile

E = os.environ.get("EXARAID", "/work/target-s7s/release/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/s7s-killshim.so")
BASE = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="s7s-lock-")


def env_for(kill):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    if kill:
        env["LD_PRELOAD"] = SHIM
        env["KILLN"] = str(kill)
    return env


def main():
    code, path = sys.argv[1], sys.argv[2]
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    r = random.Random(7)
    noss = 5 if code == "raid5" else 6
    problems = 0
    for rnd_i in range(rounds):
        d = os.path.join(BASE, "s%d" % rnd_i)
        shutil.rmtree(d, ignore_errors=True)
        subprocess.run([E, "store", "init", d, "--oss", str(noss), "--code", code, "--stripe-unit", "4096", "--write-path", path], check=True, capture_output=True)
        size = 64 * 4096
        base = r.randbytes(size)
        subprocess.run([E, "store", "put", d, "f"], input=base, check=True, capture_output=True)
        side = r.randbytes(30000)
        subprocess.run([E, "store", "put", d, "side"], input=side, check=True, capture_output=True)
        # 16 writers on distinct 16 KiB ranges (unaligned by 1000), 4 of them killed
        procs = []
        for i in range(16):
            off = i * 16384 + 1000
            data = r.randbytes(9000 + r.randrange(6000))
            kill = r.randrange(2, 30) if i % 4 == 1 else None
            p = subprocess.Popen([E, "store", "write", d, "f", "--offset", str(off), "--lock-wait-ms", "120000"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_for(kill))
            procs.append((p, off, data, kill))
        extra = []
        for a in (["flush", d], ["get", d, "side"], ["status", d]):
            extra.append((a, subprocess.Popen([E, "store"] + a + ["--lock-wait-ms", "120000"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env_for(None))))
        for p, off, data, kill in procs:
            p.stdin.write(data)
            p.stdin.close()
        res = []
        for p, off, data, kill in procs:
            err = p.stderr.read().decode(errors="replace")
            p.wait()
            res.append((p.returncode, off, data, kill, err))
        probs = []
        for a, p in extra:
            out, err = p.communicate()
            if p.returncode != 0:
                probs.append("%s rc %d: %s" % (a[0], p.returncode, err.decode(errors="replace").strip()[-200:]))
            if a[0] == "get" and p.returncode == 0 and out != side:
                probs.append("WRONG BYTES get side")
        g = subprocess.run([E, "store", "get", d, "f"], capture_output=True)
        if g.returncode != 0:
            probs.append("get f rc %d: %s" % (g.returncode, g.stderr.decode(errors="replace")[-200:]))
        else:
            got = g.stdout
            for rc, off, data, kill, err in res:
                if "panicked" in err:
                    probs.append("PANIC writer %d" % off)
                seg = got[off:off + len(data)]
                old = base[off:off + len(data)]
                if rc == 0:
                    if seg != data:
                        probs.append("LOST ACKED / WRONG: write at %d acked (kill=%s) but reads other bytes" % (off, kill))
                else:
                    if kill is None:
                        probs.append("writer %d (not killed) rc %d: %s" % (off, rc, err.strip()[-200:]))
                    wrong = sum(1 for i in range(len(seg)) if seg[i] != data[i] and seg[i] != old[i])
                    if wrong:
                        probs.append("WRONG BYTES: killed write at %d: %d bytes neither" % (off, wrong))
            # bytes outside every write range are the base's
            covered = bytearray(size)
            for rc, off, data, kill, err in res:
                covered[off:off + len(data)] = b"\x01" * len(data)
            outside = sum(1 for i in range(size) if not covered[i] and got[i] != base[i])
            if outside:
                probs.append("WRONG BYTES outside writes: %d" % outside)
        s = subprocess.run([E, "store", "scrub", d], capture_output=True)
        if s.returncode != 0:
            probs.append("scrub rc %d: %s" % (s.returncode, s.stderr.decode(errors="replace")[-200:]))
        killed = sum(1 for x in res if x[0] not in (0, 1))
        print("round %d: acked %d, killed %d, problems %d" % (rnd_i, sum(1 for x in res if x[0] == 0), killed, len(probs)), flush=True)
        for p in probs:
            print("  " + p, flush=True)
        problems += bool(probs)
        shutil.rmtree(d, ignore_errors=True)
    print("DONE lock-wait-kill %s %s: rounds %d, with problems %d" % (code, path, rounds, problems))


main()
