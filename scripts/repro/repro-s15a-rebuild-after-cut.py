# s15a: raid6, a degraded write (OSS FIRST failed) killed at each durable call (KILLTEAR=argv[3]),
# its FailedColumnCopy (last record) damaged, optionally OSS LATE failed after the crash, then
# `store FIX --oss` (argv[2]); prints the kill points after which `get f` exits 0 with wrong bytes.
# Usage: [EXARAID=...] [FIRST=1] [LATE=3] python3 repro-s15a-rebuild-after-cut.py raid6 rebuild [1]
import os, subprocess, sys, json, shutil, struct
EX = os.environ.get("EXARAID", "/work/target-s15a/debug/exaraid")
SHIM = os.environ.get("SHIM", "/tmp/exaraid-killshim.so")  # gcc -O2 -shared -fPIC -o SHIM scripts/killshim.c -ldl
code, fix, tear = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
also = sys.argv[4] if len(sys.argv) > 4 else ""
root = "/dev/shm/s15a-" + code + fix + tear + also
shutil.rmtree(root, ignore_errors=True); os.makedirs(root)
st, pr = root + "/store", root + "/pristine"
def run(args, inp=b"", env=None, check=True):
    p = subprocess.run([EX] + args, input=inp, capture_output=True, env=env)
    if check and p.returncode != 0: raise SystemExit(f"{args}: {p.stderr.decode()}")
    return p
def bts(seed, n): return bytes(((i * 31 + seed * 7) % 251) for i in range(n))
run(["store", "init", st, "--stripe-unit", "4096", "--oss", "5", "--code", code, "--write-path", "rmw"])
acked = bytearray(bts(1, 30000))
run(["store", "put", st, "f"], bytes(acked)); run(["store", "put", st, "g"], bts(2, 20000))
FIRST = os.environ.get("FIRST", "1"); LATE = os.environ.get("LATE", "")
run(["store", "fail", st, "--oss", FIRST])
if also: run(["store", "fail", st, "--oss", also])
for col in range(4):
    w = bts(10 + col, 1000); at = col * 4096 + 100
    run(["store", "write", st, "f", "--offset", str(at)], w); acked[at:at+1000] = w
subprocess.run(["cp", "-a", st, pr], check=True)
CUT_AT, cw = 2 * 4096 + 500, bts(20, 3000)
cut = bytearray(acked); cut[CUT_AT:CUT_AT+3000] = cw
def last_record(j):
    at, last = 0, None
    while at + 8 <= len(j):
        n = struct.unpack("<I", j[at:at+4])[0]
        try:
            v = json.loads(j[at+8:at+8+n]); r = v["rec"]; kind = r if isinstance(r, str) else next(iter(r))
        except Exception: kind = "?"
        last = (at, 8 + n, kind); at += 8 + n
    return last
for k in range(1, 80):
    shutil.rmtree(st); subprocess.run(["cp", "-a", pr, st], check=True)
    env = dict(os.environ, LD_PRELOAD=SHIM, KILLN=str(k))
    if tear: env["KILLTEAR"] = tear
    p = subprocess.run([EX, "store", "write", st, "f", "--offset", str(CUT_AT)], input=cw, capture_output=True, env=env)
    if p.returncode == 0: print("k", k, "finished"); break
    where = [l for l in p.stderr.decode().splitlines() if "KILLSHIM" in l]
    j = bytearray(open(st + "/journal", "rb").read())
    lr = last_record(j)
    if lr is None: continue
    at, fr, kind = lr
    if kind != "FailedColumnCopy": continue
    j[at + fr // 2 - 2] ^= 0x08; open(st + "/journal", "wb").write(j)
    target = FIRST
    if LATE:
        lf = run(["store", "fail", st, "--oss", LATE], check=False); target = LATE
        if lf.returncode: print("   late fail:", lf.stderr.decode()[-300:])
    f = run(["store", fix, st, "--oss", target], check=False)
    if f.returncode: print("   ", f.stderr.decode()[-700:])
    g = run(["store", "get", st, "f"], check=False)
    if g.returncode == 0:
        wrong = [i for i in range(len(acked)) if i >= len(g.stdout) or (g.stdout[i] != acked[i] and g.stdout[i] != cut[i])]
        res = f"get ok, wrong {len(wrong)}" + (f" {wrong[0]}..{wrong[-1]}" if wrong else "")
    else:
        res = "get refused: " + g.stderr.decode().strip()[:150]
    print("k", k, where, f"{fix} rc={f.returncode}", f.stderr.decode().strip()[:200].replace("\n"," | "), "=>", res)
shutil.rmtree(root)
