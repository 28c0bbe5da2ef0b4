#!/usr/bin/env python3
"""Review tool (engineer s4e, not CI): delayed windows + OSS failures on larger geometries.
Per round: init (delayed path), put files, START on f1, writes inside the window (several
stripe units, crossing stripes, on OSSs placed round robin), `fail` one OSS (before some
window writes, or after all), more writes; then check:
  - status lists lost ranges; each lies inside bytes written in the window (else acked
    bytes outside the window were called lost); bytes of the window outside every lost range
    read exactly; a read of a lost range fails naming it (never exit 0 with old bytes);
  - files without a window read exactly; END fails naming exactly the ranges status listed,
    and closes the window (a second END: unknown token);
  - rebuild of the failed OSS, scrub clean, every non-lost byte exact, lost ranges still
    fail; then a new window on the same file rewriting a lost range: END ok, bytes exact;
    a SECOND failure (another OSS) afterwards: everything still reads exactly.
Usage: window-fail.py CODE OSS UNIT ROUNDS [seed]     (CODE as in crash-geom.py: raid6, rs:8:3)
Env: EXARAID, S4E_DIR (default /tmp/s4e-wf), FAILWHEN=before|after|mixed (default mixed)."""
import os, subprocess, sys, shutil, random, json, re

E = os.environ.get("EXARAID", "/work/target-s4e/release/exaraid")
ROOT = os.environ.get("S4E_DIR", "/tmp/s4e-wf")


def run(args, inp=b""):
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True)


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def cargs(spec):
    p = spec.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]], int(p[2])
    if p[0] in ("raid5", "raid6"):
        return ["--code", p[0]], 1 if p[0] == "raid5" else 2
    return ["--code", p[0], "--p", p[1] if len(p) > 1 else "5"], 2


def lost_ranges(d):
    st = json.loads(run(["status", d, "--json"]).stdout)
    return [(x["file"], x["offset_bytes"], x["offset_bytes"] + x["len_bytes"]) for x in st.get("lost_ranges", [])]


def one_round(code, noss, unit, seed):
    ca, tol = cargs(code)
    d = os.path.join(ROOT, "r%d" % seed)
    shutil.rmtree(d, ignore_errors=True)
    r = random.Random(seed)
    bad = []
    p = run(["init", d, "--oss", str(noss), "--stripe-unit", str(unit), "--write-path", "delayed"] + ca)
    assert p.returncode == 0, p.stderr
    exp = {}
    for i in range(3):
        b = rnd(seed * 10 + i, r.randrange(unit, unit * 30))
        assert run(["put", d, "f%d" % i], b).returncode == 0
        exp["f%d" % i] = bytearray(b)
    tok = run(["delayed", "start", d, "f1"]).stdout.decode().strip()
    window = []  # (off, end) acknowledged inside the window
    failwhen = os.environ.get("FAILWHEN", "mixed")
    nw = r.randrange(3, 9)
    fail_at = {"before": 0, "after": nw, "mixed": r.randrange(0, nw + 1)}[failwhen]
    failed = r.randrange(noss)
    refused = 0
    for i in range(nw + 1):
        if i == fail_at:
            p = run(["fail", d, "--oss", str(failed)])
            assert p.returncode == 0, p.stderr
        if i == nw:
            break
        f1 = exp["f1"]
        off = r.randrange(0, len(f1) + unit)
        w = rnd(seed * 100 + i, r.randrange(1, unit * 3))
        p = run(["write", d, "f1", "--offset", str(off)], w)
        if p.returncode != 0:
            refused += 1
            if b"failed OSS" not in p.stderr and b"only copy" not in p.stderr and b"lost" not in p.stderr.lower():
                bad.append("window write refused with an unexpected message: " + p.stderr.decode(errors="replace")[:300])
            continue
        if len(f1) < off + len(w):
            f1.extend(b"\0" * (off + len(w) - len(f1)))
        f1[off:off + len(w)] = w
        window.append((off, off + len(w)))
        # a write to another file, outside any window, is rmw with parity
        if r.random() < 0.5:
            f = "f%d" % r.choice([0, 2])
            o2 = r.randrange(0, len(exp[f]))
            w2 = rnd(seed * 1000 + i, r.randrange(1, unit * 2))
            p = run(["write", d, f, "--offset", str(o2)], w2)
            if p.returncode != 0:
                bad.append("write to %s outside the window failed: %s" % (f, p.stderr.decode(errors="replace")[:300]))
            else:
                e = exp[f]
                if len(e) < o2 + len(w2):
                    e.extend(b"\0" * (o2 + len(w2) - len(e)))
                e[o2:o2 + len(w2)] = w2
    lost = lost_ranges(d)

    def in_window(a, b):  # every byte of a..b was written in the window
        pos = a
        while pos < b:
            covering = [e for (s, e) in window if s <= pos < e]
            if not covering:
                return False
            pos = max(covering)
        return True

    for (f, a, b) in lost:
        if f != "f1" or not in_window(a, b):
            bad.append("lost range %s %d..%d is not (all) window bytes: acknowledged bytes with parity called lost" % (f, a, b))

    def check_all(label, lost):
        for f, e in exp.items():
            ls = sorted((a, b) for (g, a, b) in lost if g == f)
            if not ls:
                p = run(["get", d, f])
                if p.returncode != 0:
                    bad.append("%s: get %s rc %d: %s" % (label, f, p.returncode, p.stderr.decode(errors="replace")[:300]))
                elif p.stdout != bytes(e):
                    bad.append("%s: get %s WRONG BYTES exit 0" % (label, f))
                continue
            # read around the lost ranges
            pos = 0
            pieces = []
            for (a, b) in ls + [(len(e), len(e))]:
                if a > pos:
                    pieces.append((pos, a))
                pos = max(pos, b)
            for (a, b) in pieces:
                p = run(["read", d, f, "--offset", str(a), "--length", str(b - a)])
                if p.returncode != 0:
                    bad.append("%s: read %s %d..%d (outside lost ranges) rc %d: %s" % (label, f, a, b, p.returncode, p.stderr.decode(errors="replace")[:300]))
                elif p.stdout != bytes(e[a:b]):
                    bad.append("%s: read %s %d..%d WRONG BYTES exit 0" % (label, f, a, b))
            for (a, b) in ls:
                p = run(["read", d, f, "--offset", str(a), "--length", str(b - a)])
                if p.returncode == 0:
                    bad.append("%s: read of lost range %s %d..%d exit 0 (%s)" % (label, f, a, b, "new bytes" if p.stdout == bytes(e[a:b]) else "NOT the acked bytes"))
                elif b"lost" not in p.stderr.lower():
                    bad.append("%s: read of lost range rc %d without naming the loss: %s" % (label, p.returncode, p.stderr.decode(errors="replace")[:200]))

    check_all("in window", lost)
    p = run(["delayed", "end", d, tok])
    if lost:
        named = set((int(a), int(b)) for a, b in re.findall(r"bytes (\d+)\.\.(\d+)", p.stderr.decode(errors="replace")))
        want = set((a, b) for (_, a, b) in lost)
        if p.returncode == 0:
            bad.append("END exit 0 although status lists lost ranges %s" % sorted(want))
        elif not want <= named:
            bad.append("END did not name every lost range: status %s, END %s" % (sorted(want), sorted(named)))
    elif p.returncode != 0:
        bad.append("END rc %d with nothing lost: %s" % (p.returncode, p.stderr.decode(errors="replace")[:300]))
    p = run(["delayed", "end", d, tok])
    if p.returncode == 0:
        bad.append("second END exit 0")
    lost2 = lost_ranges(d)
    if sorted(lost2) != sorted(lost):
        bad.append("lost ranges changed by END: %s -> %s" % (lost, lost2))
    check_all("after END", lost2)
    p = run(["rebuild", d, "--oss", str(failed)])
    if p.returncode != 0:
        bad.append("rebuild rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[:300]))
    s = run(["scrub", d])
    lost3 = lost_ranges(d)
    if s.returncode != (2 if lost3 else 0):
        bad.append("scrub after rebuild rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-400:]))
    check_all("after rebuild", lost3)
    # a new window on f1 rewriting the lost ranges
    tok2 = run(["delayed", "start", d, "f1"]).stdout.decode().strip()
    for (f, a, b) in lost3:
        w = rnd(seed * 7 + a, b - a)
        p = run(["write", d, f, "--offset", str(a)], w)
        if p.returncode != 0:
            bad.append("rewrite of lost range in a new window rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[:300]))
        else:
            exp[f][a:b] = w
    p = run(["delayed", "end", d, tok2])
    if p.returncode != 0:
        bad.append("END of the new window rc %d: %s" % (p.returncode, p.stderr.decode(errors="replace")[:300]))
    lost4 = lost_ranges(d)
    if lost4:
        bad.append("lost ranges left after rewriting them: %s" % lost4)
    check_all("after new window", lost4)
    second = (failed + 1 + r.randrange(noss - 1)) % noss
    run(["fail", d, "--oss", str(second)])
    check_all("second failure (OSS %d)" % second, lost4)
    run(["rebuild", d, "--oss", str(second)])
    s = run(["scrub", d])
    if s.returncode != 0:
        bad.append("final scrub rc %d: %s" % (s.returncode, (s.stdout + s.stderr).decode(errors="replace")[-400:]))
    summary = "seed %d: failed OSS %d at write %d of %d, %d refused, %d lost ranges (%d bytes)" % (
        seed, failed, fail_at, nw, refused, len(lost), sum(b - a for (_, a, b) in lost))
    if not bad:
        shutil.rmtree(d, ignore_errors=True)
    return summary, bad


def main():
    code, noss, unit, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    seed0 = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    found = 0
    for s in range(seed0, seed0 + rounds):
        summary, bad = one_round(code, noss, unit, s)
        print(summary + (" PROBLEMS:" if bad else " ok"), flush=True)
        for b in bad:
            print("    " + b, flush=True)
        found += bool(bad)
    print("DONE window-fail %s oss=%d unit=%d: %d of %d rounds with problems" % (code, noss, unit, found, rounds))


if __name__ == "__main__":
    main()
