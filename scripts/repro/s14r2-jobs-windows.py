#!/usr/bin/env python3
"""Review s14r2: several 'jobs' at once on one delayed store, each with its own window; ranks are
CLI `write`s in parallel; one job's node 'crashes' (its ranks killed -9, no END); an OSS directory
is pulled (moved aside) at a random moment; the other jobs END; then the disk is 'replaced' (empty
directory, fail, rebuild). Check: every acknowledged write reads back exactly or its read is refused
(named); an unacknowledged write's bytes are old (zero) or new; END that exits 0 lost nothing.
Usage: EXARAID=bin python3 s14r2-jobs-windows.py ROUNDS [CODE]"""
import os, random, shutil, subprocess, sys, time
E = os.environ["EXARAID"]; R = int(sys.argv[1]); CODE = sys.argv[2] if len(sys.argv) > 2 else "raid6"
base = os.environ.get("JW_DIR", "/dev/shm/s14r2-jw"); problems = 0
def run(*a, inp=None):
    return subprocess.run([E, "store", *a], input=inp, capture_output=True)
for rnd in range(R):
    rng = random.Random(rnd); shutil.rmtree(base, ignore_errors=True); os.makedirs(base)
    S = base + "/s"
    run("init", S, "--oss", "6", "--code", CODE, "--stripe-unit", "4096", "--write-path", "delayed")
    jobs = {}
    for j in "ABC":
        t = run("delayed", "start", S, "ck" + j, "--lock-wait-ms", "120000")
        jobs[j] = t.stdout.decode().strip()
    procs = []
    for j in "ABC":
        for rank in range(3):
            for c in range(3):
                off = (rank * 3 + c) * 9000 + rng.randrange(0, 500)
                data = os.urandom(rng.randrange(100, 9000 - 500))
                p = subprocess.Popen([E, "store", "write", S, "ck" + j, "--offset", str(off), "--lock-wait-ms", "120000"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                p.stdin.write(data); p.stdin.close()
                procs.append((j, off, data, p))
    pull_at = rng.uniform(0.0, 1.5); crash_at = rng.uniform(0.0, 1.5); pulled = False; crashed = False
    t0 = time.time(); victim = rng.randrange(6)
    while any(p.poll() is None for *_, p in procs):
        el = time.time() - t0
        if not pulled and el > pull_at:
            os.rename(f"{S}/oss-{victim}", f"{base}/pulled"); pulled = True
        if not crashed and el > crash_at:
            for j, off, data, p in procs:
                if j == "B" and p.poll() is None: p.kill()
            crashed = True
        time.sleep(0.005)
    if not pulled: os.rename(f"{S}/oss-{victim}", f"{base}/pulled")
    ends = {}
    for j in "AC":
        e = run("delayed", "end", S, jobs[j]); ends[j] = e
    # replace the disk: empty dir, fail (if not failed), rebuild
    os.makedirs(f"{S}/oss-{victim}")
    run("fail", S, "--oss", str(victim)); rb = run("rebuild", S, "--oss", str(victim))
    files = {}
    for j in "ABC":
        g = run("get", S, "ck" + j); files[j] = g
    for j, off, data, p in procs:
        rc = p.returncode; g = files[j]
        if g.returncode != 0:
            # refused: fine only if named lost; can't check bytes of whole file, read range instead
            r = run("read", S, "ck" + j, "--offset", str(off), "--length", str(len(data)))
            if r.returncode != 0:
                if rc == 0 and j in ends and ends[j].returncode == 0:
                    print(f"round {rnd}: {j} ack write {off}+{len(data)} unreadable but END rc 0: {r.stderr[:200]}"); problems += 1
                continue
            got = r.stdout
        else:
            got = g.stdout[off:off + len(data)]
        if rc == 0:
            if got != data:
                nb = sum(1 for a, b in zip(got, data) if a != b) + abs(len(got) - len(data))
                print(f"round {rnd}: job {j} ACK write {off}+{len(data)} WRONG {nb} bytes (victim {victim}, END {ends.get(j) and ends[j].returncode})"); problems += 1
        else:
            bad = sum(1 for i, b in enumerate(got) if b != 0 and b != data[i])
            if bad: print(f"round {rnd}: job {j} unack write {off} {bad} bytes neither old nor new"); problems += 1
    sc = run("scrub", S)
    print(f"round {rnd} victim {victim} pull {pull_at:.2f} crash {crash_at:.2f} ENDs {[ends[j].returncode for j in 'AC']} rebuild {rb.returncode} gets {[files[j].returncode for j in 'ABC']} scrub {sc.returncode}", flush=True)
    if rb.returncode: print("  rebuild:", rb.stderr[:300])
    for j in "AC":
        if ends[j].returncode: print("  END", j, ends[j].stderr[:300])
print("problems", problems)
