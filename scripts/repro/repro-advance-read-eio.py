#!/usr/bin/env python3
"""Repro (review s4e, finding E11c; not CI): a delayed window on raid6 k=4 over 9 OSSs (64 KiB,
--unprotected-max-bytes 100000), 3 acked window writes; a 4th write that advances the parity runs
with the N-th read of an OSS object file failing (EIO, transient): with N=12 the write exits 0 and
earlier ACKNOWLEDGED window bytes are recorded LOST; with N=5 or 8 the write fails and OSS 7 is
recorded failed, so every window byte on it is LOST, though all of it is still readable.
Usage: repro-advance-read-eio.py N     Needs /tmp/s4e-eioshim.so. Scratch: $REPRO_DIR/s4e-adv (default: under a new temporary directory)."""
import os, subprocess, random, shutil, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
E=os.environ.get("EXARAID", "/work/target-s4e/release/exaraid"); d=scratch("s4e-adv"); UNIT=65536
N=int(sys.argv[1])
def run(a, inp=b"", env=None): return subprocess.run([E,"store"]+a, input=inp, capture_output=True, env=env)
def rnd(s,n): return random.Random(s).randbytes(n)
shutil.rmtree(d, ignore_errors=True)
run(["init",d,"--oss","9","--code","raid6","--k","4","--stripe-unit",str(UNIT),"--write-path","delayed","--unprotected-max-bytes","100000"])
exp={}
for i in range(3):
    b=rnd(i,UNIT*6+17); run(["put",d,"f%d"%i],b); exp["f%d"%i]=bytearray(b)
t=run(["delayed","start",d,"f1"]).stdout.decode().strip()
r=random.Random(3)
for i in range(3):
    off=r.randrange(0,UNIT*5); w=rnd(50+i,30000); assert run(["write",d,"f1","--offset",str(off)],w).returncode==0; exp["f1"][off:off+30000]=w
print(run(["status",d]).stdout.decode().splitlines()[-2:])
off=r.randrange(0,UNIT*5); w=rnd(99,30000)
env=dict(os.environ, LD_PRELOAD="/tmp/s4e-eioshim.so", READFAILN=str(N))
p=run(["write",d,"f1","--offset",str(off)],w,env=env)
print("advancing write rc",p.returncode,p.stderr.decode()[:300].strip())
if p.returncode==0: exp["f1"][off:off+30000]=w
print(run(["status",d]).stdout.decode().splitlines()[-3:])
for f,e in exp.items():
    g=run(["get",d,f]); a=g.stdout
    bad=sum(1 for i in range(len(e)) if i>=len(a) or a[i]!=e[i]) if g.returncode==0 else -1
    if bad: print(f,"rc",g.returncode,"bad",bad,g.stderr.decode()[:200])
