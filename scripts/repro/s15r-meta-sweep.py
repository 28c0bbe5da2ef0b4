#!/usr/bin/env python3
"""Review tool (engineer s9r, not CI; s15r copy adds FILE epoch = oss-1/exaraid-epoch.json, epoch0, and
S9R_DIR default under /dev/shm): EXHAUSTIVE damage of one metadata file of a small store:
a bit flip at every byte offset (bit = offset % 8), or a truncation at every length, then
`status`, `ls`, `get` of every file and `scrub` on the damaged store. Per case it reports:
PANIC (rc 101/134/<0 or "panicked"), WRONG (get rc 0 with bytes that differ), SILENT (the
damage changed what a command prints, rc 0, e.g. another geometry), then the damaged file is
put back byte for byte and every file must read exactly (DAMAGED = a command on the damaged
store changed stored data or other metadata for good).

Usage: meta-sweep.py FILE MODE [STEP]
  FILE: superblock | state | journal | label (oss-1/exaraid-oss.json) | extents (oss-1/
        exaraid-extents.json) | extlog (oss-1/exaraid-extents.log)
  MODE: flip | trunc;  STEP: every STEP-th offset / length (default 1)
Env: EXARAID (binary), S9R_DIR (default /tmp/s9r-meta), CODE (raid6), OSS (5), WPATH (delayed),
  JOURNAL=1: leave journal records (a delayed window open with written bytes, a killed write
  needs SHIM=killshim.so: KILLN=4)."""
import os, random, shutil, subprocess, sys

E = os.environ.get("EXARAID", "/work/target-s9r/release/exaraid")
ROOT = os.environ.get("S9R_DIR", "/dev/shm/s15r-meta")
CODE = os.environ.get("CODE", "raid6")
NOSS = int(os.environ.get("OSS", "5"))
WPATH = os.environ.get("WPATH", "delayed")
D = ROOT + "/store"
ALT = {}
P = ROOT + "/pristine"
BAD_RC = (101, 134)

FILES = {
    "superblock": "superblock",
    "state": "state",
    "journal": "journal",
    "label": "oss-1/exaraid-oss.json",
    "extents": "oss-1/exaraid-extents.json",
    "extlog": "oss-1/exaraid-extents.log",
    "epoch": "oss-1/exaraid-epoch.json",
    "epoch0": "oss-0/exaraid-epoch.json",
    "cachelabel": "oss-2/exaraid-oss.json",
}


def run(args, inp=b"", env=None):
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True, env=env, timeout=60)


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def cargs():
    p = CODE.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]]
    if len(p) > 1:
        return ["--code", p[0], "--p", p[1]]
    return ["--code", p[0]]


def make():
    shutil.rmtree(ROOT, ignore_errors=True)
    os.makedirs(ROOT)
    p = run(["init", D, "--oss", str(NOSS), "--stripe-unit", "4096", "--write-path", WPATH] + cargs())
    assert p.returncode == 0, p.stderr
    exp = {}
    for i in range(3):
        b = rnd(i, 9000 + 7000 * i)
        assert run(["put", D, "f%d" % i], b).returncode == 0
        exp["f%d" % i] = bytearray(b)
    w = rnd(99, 5000)
    assert run(["write", D, "f1", "--offset", "3000"], w).returncode == 0
    exp["f1"][3000:8000] = w
    if os.environ.get("JOURNAL") == "1":
        if WPATH == "delayed":
            p = run(["delayed", "start", D, "f2"])
            assert p.returncode == 0, p.stderr
            w = rnd(98, 3000)
            assert run(["write", D, "f2", "--offset", "100"], w).returncode == 0
            exp["f2"][100:3100] = w
        if os.environ.get("SHIM"):
            env = dict(os.environ, LD_PRELOAD=os.environ["SHIM"], KILLN=os.environ.get("KILLN", "4"))
            w = rnd(97, 4000)
            run(["write", D, "f0", "--offset", "0"], w, env=env)
            # The killed write may or may not have happened: either is right (ALT). The
            # pristine copy is taken now, before any open recovers (and empties the journal).
            ALT["f0"] = bytes(w) + bytes(exp["f0"][4000:])
            shutil.copytree(D, P, symlinks=True)
            return {k: bytes(v) for k, v in exp.items()}
    for name, b in exp.items():
        g = run(["get", D, name])
        assert g.returncode == 0 and g.stdout == bytes(b), name
    shutil.copytree(D, P, symlinks=True)
    return {k: bytes(v) for k, v in exp.items()}


def restore_all():
    shutil.rmtree(D, ignore_errors=True)
    shutil.copytree(P, D, symlinks=True)


def main():
    what, mode = sys.argv[1], sys.argv[2]
    step = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    exp = make()
    rel = FILES[what]
    orig = open(os.path.join(P, rel), "rb").read()
    base_status = run(["status", D]).stdout
    print("%s: %d bytes, mode %s, step %d" % (rel, len(orig), mode, step), flush=True)
    cases = range(0, len(orig), step) if mode == "flip" else range(0, len(orig), step)
    counts = {}
    rcs = {}
    for pos in cases:
        restore_all()
        path = os.path.join(D, rel)
        if mode == "flip":
            b = bytearray(orig)
            b[pos] ^= 1 << (pos % 8)
            open(path, "wb").write(b)
        else:
            open(path, "wb").write(orig[:pos])
        tags = []
        lines = []
        for cmd in (["status", D], ["ls", D], ["scrub", D]) + tuple(["get", D, n] for n in exp):
            p = run(cmd)
            err = p.stderr.decode(errors="replace")
            rcs[p.returncode] = rcs.get(p.returncode, 0) + 1
            if p.returncode in BAD_RC or p.returncode < 0 or "panicked" in err:
                tags.append("PANIC")
                lines.append("%s rc %d %s" % (cmd[0], p.returncode, err.strip()[-300:]))
            if cmd[0] == "get" and p.returncode == 0 and p.stdout != exp[cmd[2]] and p.stdout != ALT.get(cmd[2]):
                tags.append("WRONG")
                lines.append("get %s rc 0, %d bytes vs %d" % (cmd[2], len(p.stdout), len(exp[cmd[2]])))
            if cmd[0] == "status" and p.returncode == 0 and p.stdout != base_status:
                tags.append("SILENT")
                lines.append("status rc 0 differs: " + p.stdout.decode(errors="replace")[:300].replace("\n", " / "))
            if p.returncode != 0 and not err.strip() and not p.stdout.strip():
                tags.append("NOMSG")
                lines.append("%s rc %d with no message" % (cmd[0], p.returncode))
        # Put the damaged file back; everything must read as before.
        open(path, "wb").write(orig)
        for n, b in exp.items():
            g = run(["get", D, n])
            if g.returncode != 0 or (g.stdout != b and g.stdout != ALT.get(n)):
                tags.append("DAMAGED")
                lines.append("after repair: get %s rc %d %s" % (n, g.returncode, g.stderr.decode(errors="replace").strip()[:200]))
        for t in set(tags):
            counts[t] = counts.get(t, 0) + 1
        if tags:
            print("%s %s %d: %s | %s" % (rel, mode, pos, ",".join(sorted(set(tags))), " || ".join(lines[:4])), flush=True)
    print("DONE %s %s: %d cases, problems %s, rc counts %s" % (rel, mode, len(cases), counts, rcs))


if __name__ == "__main__":
    main()
