#!/usr/bin/env python3
"""Review tool (engineer s4e, not CI): damage one metadata file (or an OSS directory, a zone
file) of a store with data, run every command on it, and report per command: exit code,
the first line of its message, a panic/abort (rc 101/134/-6/-11), wrong bytes with exit 0;
then undo the damage where it can be undone (restore the saved file / directory) and check
that every acknowledged byte is still there (nothing lost by a command run on the damaged
store) and scrub is clean.

Usage: damage-meta.py [DAMAGE ...]     (no argument: every damage in DAMAGES)
Env: EXARAID (binary, default /work/target-s4e/release/exaraid), S4E_DIR (default
  /tmp/s4e-dm), CODE (default raid6), OSS (6), UNIT (65536), WPATH (wcl), VERBOSE=1 prints
  every command's line, not only the suspicious ones."""
import os, subprocess, sys, shutil, random, json

E = os.environ.get("EXARAID", "/work/target-s4e/release/exaraid")
ROOT = os.environ.get("S4E_DIR", "/tmp/s4e-dm")
CODE = os.environ.get("CODE", "raid6")
NOSS = int(os.environ.get("OSS", "6"))
UNIT = int(os.environ.get("UNIT", "65536"))
WPATH = os.environ.get("WPATH", "wcl")


def run(args, inp=b""):
    return subprocess.run([E, "store"] + args, input=inp, capture_output=True)


def rnd(seed, n):
    return random.Random(seed).randbytes(n)


def cargs():
    p = CODE.split(":")
    if p[0] == "rs":
        return ["--code", "rs", "--k", p[1], "--m", p[2]]
    if len(p) > 1:
        return ["--code", p[0], "--p", p[1]]
    return ["--code", p[0]]


def make(d):
    shutil.rmtree(d, ignore_errors=True)
    p = run(["init", d, "--oss", str(NOSS), "--stripe-unit", str(UNIT), "--write-path", WPATH] + cargs())
    assert p.returncode == 0, p.stderr
    exp = {}
    for i in range(3):
        b = rnd(i, UNIT * 5 + 1000 * i + 17)
        assert run(["put", d, "f%d" % i], b).returncode == 0
        exp["f%d" % i] = bytearray(b)
    r = random.Random(5)
    for i in range(4):  # small writes: on wcl they sit in the cache zone
        off = r.randrange(0, UNIT * 5)
        w = rnd(100 + i, r.randrange(1, 9000))
        p = run(["write", d, "f1", "--offset", str(off)], w)
        assert p.returncode == 0, p.stderr
        e = exp["f1"]
        if len(e) < off + len(w):
            e.extend(b"\0" * (off + len(w) - len(e)))
        e[off:off + len(w)] = w
    return {k: bytes(v) for k, v in exp.items()}


def flip(path, pos=None):
    with open(path, "r+b") as fh:
        size = os.path.getsize(path)
        pos = size // 2 if pos is None else min(pos, size - 1)
        fh.seek(pos)
        b = fh.read(1)
        fh.seek(pos)
        fh.write(bytes([b[0] ^ 0x04]))


def truncate(path, frac=0.5):
    os.truncate(path, int(os.path.getsize(path) * frac))


def first_obj(d, oss, ext):
    o = os.path.join(d, "oss-%d" % oss, "objects")
    fs = sorted(f for f in os.listdir(o) if f.endswith(ext))
    return os.path.join(o, fs[0]) if fs else None


# name -> (what to do, which path to save for undo)
def damages(d):
    o1 = os.path.join(d, "oss-1")
    return {
        "superblock-flip": (lambda: flip(d + "/superblock"), d + "/superblock"),
        "superblock-trunc": (lambda: truncate(d + "/superblock"), d + "/superblock"),
        "superblock-empty": (lambda: truncate(d + "/superblock", 0), d + "/superblock"),
        "superblock-gone": (lambda: os.remove(d + "/superblock"), d + "/superblock"),
        "state-flip": (lambda: flip(d + "/state"), d + "/state"),
        "state-trunc": (lambda: truncate(d + "/state"), d + "/state"),
        "state-gone": (lambda: os.remove(d + "/state"), d + "/state"),
        "journal-flip-mid": (lambda: flip(d + "/journal"), d + "/journal"),
        "journal-flip-first": (lambda: flip(d + "/journal", 20), d + "/journal"),
        "journal-trunc-half": (lambda: truncate(d + "/journal"), d + "/journal"),
        "journal-empty": (lambda: truncate(d + "/journal", 0), d + "/journal"),
        "journal-gone": (lambda: os.remove(d + "/journal"), d + "/journal"),
        "lock-gone": (lambda: os.remove(d + "/lock") if os.path.exists(d + "/lock") else None, None),
        "label-gone": (lambda: os.remove(o1 + "/exaraid-oss.json"), o1 + "/exaraid-oss.json"),
        "label-flip": (lambda: flip(o1 + "/exaraid-oss.json", 5), o1 + "/exaraid-oss.json"),
        "extents-json-gone": (lambda: os.remove(o1 + "/exaraid-extents.json"), o1 + "/exaraid-extents.json"),
        "extents-json-flip": (lambda: flip(o1 + "/exaraid-extents.json", 3), o1 + "/exaraid-extents.json"),
        "extents-log-gone": (lambda: os.remove(o1 + "/exaraid-extents.log"), o1 + "/exaraid-extents.log"),
        "extents-log-flip": (lambda: flip(o1 + "/exaraid-extents.log", 10), o1 + "/exaraid-extents.log"),
        "extents-log-trunc": (lambda: truncate(o1 + "/exaraid-extents.log"), o1 + "/exaraid-extents.log"),
        "oss-dir-gone": (lambda: shutil.move(o1, o1 + ".away"), None),
        "objects-dir-gone": (lambda: shutil.rmtree(o1 + "/objects"), None),
        "data-zone-gone": (lambda: os.remove(first_obj(d, 1, ".data")), None),
        "data-zone-trunc": (lambda: truncate(first_obj(d, 1, ".data"), 0.3), None),
        "cache-zone-gone": (lambda: os.remove(first_obj(d, 1, ".cache")) if first_obj(d, 1, ".cache") else None, None),
        "parity-zone-gone": (lambda: [os.remove(os.path.join(d, "oss-%d/objects" % o, f)) for o in range(NOSS)
                                      for f in os.listdir(os.path.join(d, "oss-%d/objects" % o)) if f.endswith(".parity")][:1], None),
        "two-oss-gone": (lambda: (shutil.move(o1, o1 + ".away"), shutil.move(d + "/oss-2", d + "/oss-2.away")), None),
        "three-oss-gone": (lambda: (shutil.move(o1, o1 + ".away"), shutil.move(d + "/oss-2", d + "/oss-2.away"),
                                    shutil.move(d + "/oss-3", d + "/oss-3.away")), None),
    }


BAD_RC = (101, 134, -6, -11, 139)


def main():
    os.makedirs(ROOT, exist_ok=True)
    wanted = sys.argv[1:]
    names = list(damages(ROOT + "/x").keys())
    problems = 0
    for name in (wanted or names):
        d = os.path.join(ROOT, name)
        exp = make(d)
        if name.startswith("journal"):
            # between commands the journal is empty (every close checkpoints): leave records
            # in it by killing a write to a file no check looks at
            env = dict(os.environ, LD_PRELOAD=os.environ.get("SHIM", "/tmp/s4e-killshim.so"), KILLN="5")
            subprocess.run([E, "store", "write", d, "k", "--offset", "0"], input=rnd(7, 200000),
                           capture_output=True, env=env)
            print("   (journal holds %d bytes after a killed write)" % os.path.getsize(d + "/journal"))
        act, save = damages(d)[name]
        saved = None
        if save and os.path.exists(save):
            saved = open(save, "rb").read()
        act()
        lines = []
        suspicious = []

        def note(cmd, p, extra=""):
            msg = (p.stderr.decode(errors="replace").strip().splitlines() or [""])[0][:260]
            line = "  %-22s rc %-4s %s%s" % (cmd, p.returncode, msg, extra)
            lines.append(line)
            if p.returncode in BAD_RC or "panicked" in p.stderr.decode(errors="replace"):
                suspicious.append(line + "  <-- PANIC/ABORT")
            return msg

        for cmd in (["status"], ["status", "--json"], ["ls"], ["scrub"]):
            p = run([cmd[0], d] + cmd[1:])
            note(" ".join(cmd), p, (" | stdout: " + p.stdout.decode(errors="replace").strip().replace("\n", " / ")[:200]) if cmd[0] != "status" or p.returncode == 0 else "")
        for f, b in exp.items():
            p = run(["get", d, f])
            w = ""
            if p.returncode == 0 and p.stdout != b:
                w = "  <-- WRONG BYTES exit 0 (len %d vs %d)" % (len(p.stdout), len(b))
                suspicious.append("  get %s%s" % (f, w))
            note("get " + f, p, w)
        p = run(["read", d, "f1", "--offset", str(UNIT - 100), "--length", "5000"])
        if p.returncode == 0 and p.stdout != exp["f1"][UNIT - 100:UNIT + 4900]:
            suspicious.append("  read f1  <-- WRONG BYTES exit 0")
        note("read f1", p)
        # changing commands; the expectation follows what they acknowledged
        w = rnd(999, 7000)
        p = run(["write", d, "f0", "--offset", "3000"], w)
        note("write f0", p)
        if p.returncode == 0:
            e = bytearray(exp["f0"]); e[3000:10000] = w; exp["f0"] = bytes(e)
        h = rnd(998, UNIT * 3 + 5)
        p = run(["put", d, "h"], h)
        note("put h", p)
        if p.returncode == 0:
            exp["h"] = h
        p = run(["rm", d, "f2"])
        note("rm f2", p)
        if p.returncode == 0:
            exp.pop("f2")
        p = run(["scrub", d, "--repair"])
        note("scrub --repair", p, " | " + p.stdout.decode(errors="replace").strip().replace("\n", " / ")[:200])
        p = run(["online", d, "--oss", "1"]); note("online 1", p)
        p = run(["rebuild", d, "--oss", "1"]); note("rebuild 1", p)
        p = run(["fail", d, "--oss", "4"]); note("fail 4", p)
        for f, b in exp.items():
            p = run(["get", d, f])
            w = ""
            if p.returncode == 0 and p.stdout != b:
                w = "  <-- WRONG BYTES exit 0 (len %d vs %d)" % (len(p.stdout), len(b))
                suspicious.append("  get %s (after changes, OSS 4 failed)%s" % (f, w))
            note("get %s (4 failed)" % f, p, w)
        p = run(["rebuild", d, "--oss", "4"]); note("rebuild 4", p)
        # undo the damage where it can be undone, then every acknowledged byte must be there
        if saved is not None:
            open(save, "wb").write(saved)
        for a in (os.path.join(d, "oss-%d" % o) for o in range(NOSS)):
            if os.path.exists(a + ".away") and not os.path.exists(a):
                shutil.move(a + ".away", a)
        lines.append("  -- damage undone --")
        for f, b in exp.items():
            p = run(["get", d, f])
            w = ""
            if p.returncode != 0:
                w = "  <-- ACKED DATA NOT READABLE after undo"
                suspicious.append("  get %s after undo rc %d: %s" % (f, p.returncode, p.stderr.decode(errors="replace").strip()[:300]))
            elif p.stdout != b:
                w = "  <-- WRONG BYTES exit 0 after undo"
                suspicious.append("  get %s after undo%s" % (f, w))
            note("get %s (undone)" % f, p, w)
        for o in range(NOSS):
            st = json.loads(run(["status", d, "--json"]).stdout or b"{}")
            if o in st.get("failed_oss", []) or any((x.get("index") == o and not x.get("healthy", True)) for x in st.get("oss", [])):
                run(["rebuild", d, "--oss", str(o)])
        p = run(["scrub", d])
        note("scrub (undone)", p, " | " + p.stdout.decode(errors="replace").strip().replace("\n", " / ")[:300])
        if p.returncode != 0:
            suspicious.append("  final scrub rc %d: %s" % (p.returncode, (p.stdout + p.stderr).decode(errors="replace").strip()[:300]))
        print("== %s: %d suspicious" % (name, len(suspicious)), flush=True)
        for l in (lines if os.environ.get("VERBOSE") else suspicious):
            print(l, flush=True)
        problems += len(suspicious)
        if not os.environ.get("KEEP"):
            shutil.rmtree(d, ignore_errors=True)
    print("DONE damage-meta: %d suspicious lines" % problems)


if __name__ == "__main__":
    main()
