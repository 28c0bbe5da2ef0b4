#!/usr/bin/env python3
# Usage: EXARAID=... [SHIM=killshim.so] [CODE=raid5|raid6] [CMD=write|flush] [FAIL=1] [KILLTEAR=1] s15m-timeout-kill-sweep.py K1-K2
# s15m: a delayed window's TIMEOUT fired by a command killed -9 at durable call K (s15c: timeout crcs
# synced; s15g: the settle keeps a timed-out window closed), then a data OSS fails after the crash,
# then flush (settle) and a write: every acknowledged byte must read (the killed write's range old or
# new), or be named lost; never wrong with exit 0.
import os, sys, subprocess, shutil, random, time
E = os.environ["EXARAID"]; SH = os.environ.get("SHIM", "/tmp/exaraid-killshim.so")
R = os.environ.get("D", "/dev/shm/s15m-tk"); CODE = os.environ.get("CODE", "raid5").split()
FAIL = os.environ.get("FAIL", "1"); CMD = os.environ.get("CMD", "write")
k1, k2 = map(int, sys.argv[1].split("-"))
def run(a, inp=b"", env=None):
    e = dict(os.environ); e.pop("LD_PRELOAD", None); e.update(env or {})
    return subprocess.run([E, "store"] + a, input=inp, capture_output=True, env=e, timeout=120)
d = R + "/s"; summary = {}
for k in range(k1, k2 + 1):
    rng = random.Random(5); A = rng.randbytes(60000)
    shutil.rmtree(R, ignore_errors=True); os.makedirs(R)
    assert run(["init", d, "--oss", "5", "--code", *CODE, "--stripe-unit", "4096", "--write-path", "delayed", "--window-timeout-ms", "300"]).returncode == 0
    run(["put", d, "f"], A); m = bytearray(A)
    tok = run(["delayed", "start", d, "f"]).stdout.decode().strip()
    for off, n in ((100, 9000), (20000, 13000)):
        w = rng.randbytes(n); assert run(["write", d, "f", "--offset", str(off)], w).returncode == 0; m[off:off + n] = w
    time.sleep(0.5)
    cw = rng.randbytes(2000); cut = bytearray(m); cut[40000:42000] = cw
    if CMD == "write":
        p = run(["write", d, "f", "--offset", "40000"], cw, env={"LD_PRELOAD": SH, "KILLN": str(k)})
    else:
        p = run(["flush", d], env={"LD_PRELOAD": SH, "KILLN": str(k)})
    if p.returncode != -9:
        print("k=%d not killed rc %d: done" % (k, p.returncode)); 
        if p.returncode == 0 and CMD == "write": m = cut
        break
    f = run(["fail", d, "--oss", FAIL])
    fl = run(["flush", d])
    w2 = rng.randbytes(500); pw = run(["write", d, "f", "--offset", "50000"], w2)
    if pw.returncode == 0: m[50000:50500] = w2; cut[50000:50500] = w2
    g = run(["get", d, "f"]); st = run(["status", d])
    if g.returncode == 0:
        x = g.stdout
        wrong = [i for i in range(max(len(x), len(m))) if i >= len(x) or i >= len(m) or (x[i] != m[i] and x[i] != cut[i])]
        res = "ok" if not wrong else "WRONG %d bytes %d..%d" % (len(wrong), wrong[0], wrong[-1])
    else:
        res = "refused: " + g.stderr.decode().strip().splitlines()[-1][:160]
    unprot = [l for l in st.stdout.decode().splitlines() if "unprotected" in l]
    print("k=%d fail rc %d flush rc %d write rc %d get: %s | %s" % (k, f.returncode, fl.returncode, pw.returncode, res, "; ".join(unprot)[:120]))
    summary[res[:5]] = summary.get(res[:5], 0) + 1
print(summary)
shutil.rmtree(R, ignore_errors=True)
