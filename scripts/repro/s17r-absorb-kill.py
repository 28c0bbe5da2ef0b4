#!/usr/bin/env python3
"""s17r: delayed windows on 3 files (MBs of window bytes), OSS F failed inside them; the next
command's open absorbs the losses (a settle of every other cached byte): that command killed -9
at a random instant (a few times), then END of each window, then `online --oss F` (TAKEBACK=1)
or `rebuild`; every 64 KiB piece read: the model's bytes, or refused only inside a named LOST range.
usage: EXARAID=... s17r-absorb-kill.py DIR SEED [CODE="--code rs --k 4 --m 3 --oss 7"] [F=2]"""
import os, random, subprocess, sys, shutil, re, time
B = os.environ["EXARAID"]; D = sys.argv[1]; seed = int(sys.argv[2])
CODE = (sys.argv[3] if len(sys.argv) > 3 else "--code rs --k 4 --m 3 --oss 7").split(); F = int(sys.argv[4]) if len(sys.argv) > 4 else 2
TAKEBACK = os.environ.get("TAKEBACK", "1") == "1"; KMAX = float(os.environ.get("KMAX", "0.3"))
rng = random.Random(seed)
def run(*a, inp=None):
    p = subprocess.run([B, "store", *a], input=inp, capture_output=True, timeout=300)
    return p.returncode, p.stdout, p.stderr.decode(errors="replace")
shutil.rmtree(D, ignore_errors=True); os.makedirs(D); S = D + "/s"
rc, o, e = run("init", S, *CODE, "--stripe-unit", "65536", "--write-path", "delayed"); assert rc == 0, e
model = {}; toks = {}
for n in "abc":
    data = os.urandom(rng.randrange(2000000, 6000000)); rc, o, e = run("put", S, n, inp=data); assert rc == 0, e; model[n] = bytearray(data)
for n in "abc":
    rc, o, e = run("delayed", "start", S, n); assert rc == 0, e; toks[n] = o.decode().strip()
def wr(n, off, data):
    rc, o, e = run("write", S, n, "--offset", str(off), inp=data)
    if rc == 0:
        m = model[n]
        if len(m) < off: m.extend(bytes(off - len(m)))
        m[off:off + len(data)] = data
    return rc, e
for i in range(10):
    n = rng.choice("abc"); wr(n, rng.randrange(0, 6000000), os.urandom(rng.randrange(1, 1500000)))
lost = {n: [] for n in "abc"}
def parse_lost(text):
    for mm in re.finditer(r"'([abc])' bytes (\d+)\.\.(\d+)", text):
        lost[mm.group(1)].append((int(mm.group(2)), int(mm.group(3))))
rc, o, e = run("fail", S, "--oss", str(F)); parse_lost(o.decode() + e)
kills = 0
for k in range(6):
    p = subprocess.Popen([B, "store", "status", S], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    time.sleep(rng.uniform(0.003, KMAX)); p.kill(); out, err = p.communicate(); parse_lost(out.decode(errors="replace"))
    kills += p.returncode == -9
for n in "abc":
    rc, o, e = run("delayed", "end", S, toks[n]); parse_lost(e)
if TAKEBACK:
    rc, o, e = run("online", S, "--oss", str(F)); print("online rc", rc, (o.decode() + e).strip()[:200])
    lost = {n: [] for n in "abc"}
else:
    rc, o, e = run("rebuild", S, "--oss", str(F)); print("rebuild rc", rc, e.strip()[:200])
rc, o, e = run("status", S); parse_lost(o.decode())
def check(tag):
    bad = 0
    for n, m in model.items():
        rc, o, e = run("get", S, n)
        if rc == 0:
            if o != bytes(m):
                d = [i for i in range(min(len(o), len(m))) if o[i] != m[i]]
                print(f"{tag}: WRONG BYTES {n} (get rc 0): len {len(o)} vs {len(m)}, {len(d)} differ, first {d[:3]}"); bad += 1
            continue
        for off in range(0, len(m), 65536):
            ln = min(65536, len(m) - off)
            rc, o, e = run("read", S, n, "--offset", str(off), "--length", str(ln))
            if rc == 0:
                if o != bytes(m[off:off + ln]):
                    d = [i for i in range(ln) if o[i] != m[off + i]]
                    print(f"{tag}: WRONG BYTES {n}@{off}: {len(d)} differ, first {off + d[0]}"); bad += 1
            else:
                parse_lost(e)
                if not any(a < off + ln and off < b for a, b in lost[n]):
                    print(f"{tag}: {n}@{off} refused, not named LOST: {e.strip()[:200]}"); bad += 1
    return bad
bad = check("after")
others = [i for i in range(int(CODE[CODE.index('--oss') + 1])) if i != F][:2]
for x in others: run("fail", S, "--oss", str(x))
bad += check(f"OSS {others} failed too")
print(f"DONE seed {seed} kills={kills} bad={bad} lost={ {k: len(v) for k, v in lost.items()} }")
shutil.rmtree(D, ignore_errors=True)
