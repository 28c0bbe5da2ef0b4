#!/usr/bin/env python3
"""Review tool (engineer s5r, not CI): N one-element writes scattered over a sparse file (raid5 over 3 OSSs,
4 KiB unit, every other stripe, random order) so that the extents record of each zone passes
EXTENTS_RUNS_PER_ZONE_MAX (1024 runs: gaps get merged) and the file's written runs pass WRITTEN_RUNS_MAX;
then get, scrub, fail/rebuild each OSS, scrub. Usage: scattered-runs.py rmw|wcl|delayed N (N >= 3200 to pass
1024 runs per data zone). Env: EXARAID, S5R_DIR (scratch, default: s5r-runs under $REPRO_DIR or a new temporary directory)."""
import subprocess, random, sys, os, shutil
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)


E=os.environ.get("EXARAID", "/work/target-s5r/release/exaraid"); D=os.environ.get("S5R_DIR") or scratch("s5r-runs")
path=sys.argv[1]; n=int(sys.argv[2])
shutil.rmtree(D, ignore_errors=True)
def run(a, inp=b"", env=None): return subprocess.run([E,"store"]+a, input=inp, capture_output=True, env=env)
assert run(["init",D,"--oss","3","--code","raid5","--stripe-unit","4096","--write-path",path]).returncode==0
unit=4096; stripe=2*unit
exp=bytearray()
r=random.Random(1)
order=list(range(n)); r.shuffle(order)
for j,i in enumerate(order):
    off=i*2*stripe + r.randrange(0, stripe-10); w=r.randbytes(10)
    p=run(["write",D,"f","--offset",str(off)],w)
    if p.returncode: print("write rc",p.returncode,p.stderr[-300:]); break
    if len(exp)<off+10: exp.extend(b"\0"*(off+10-len(exp)))
    exp[off:off+10]=w
def chk(label):
    g=run(["get",D,"f"])
    ok = g.returncode==0 and g.stdout==bytes(exp)
    print(label, "rc", g.returncode, "exact" if ok else "WRONG %s" % (g.stderr[-300:] if g.returncode else sum(1 for a,b in zip(g.stdout,exp) if a!=b)), flush=True)
chk("after %d scattered writes" % n)
print(run(["scrub",D]).stdout.decode().strip().splitlines()[-1])
for o in range(3):
    run(["fail",D,"--oss",str(o)]); chk("OSS %d failed" % o)
    p=run(["rebuild",D,"--oss",str(o)]); print("rebuild",o,"rc",p.returncode,p.stderr[-200:])
    chk("after rebuild %d" % o)
s=run(["scrub",D]); print("scrub rc",s.returncode,s.stdout.decode().strip().splitlines()[-1])
print([ (o, os.path.getsize(D+"/oss-%d/exaraid-extents.json"%o), os.path.getsize(D+"/oss-%d/exaraid-extents.log"%o)) for o in range(3)])
