#!/usr/bin/env python3
"""Repro (review s4e, finding E8 repro B; not CI): the WCL cache zone file of OSS 1 deleted behind
the store's back; a later `put h` (another file) recreates it with new slots after a hole, and
f1's acknowledged cached bytes then read as zeros with exit 0 (permanent after the next settle).
Usage: repro-zone-recreated.py puth     (prints "bad 496 ..." when the bug is there, "bad 0" when not)
Scratch: $REPRO_DIR/s4e-cz (default: under a new temporary directory) (delete it afterwards). EXARAID: the binary."""
import os, subprocess, random, shutil, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
E=os.environ.get("EXARAID", "/work/target-s4e/release/exaraid"); d=scratch("s4e-cz"); UNIT=65536
def run(a, inp=b""): return subprocess.run([E,"store"]+a, input=inp, capture_output=True)
def rnd(s,n): return random.Random(s).randbytes(n)
shutil.rmtree(d, ignore_errors=True)
run(["init",d,"--oss","6","--code","raid6","--stripe-unit",str(UNIT),"--write-path","wcl"])
exp={}
for i in range(3):
    b=rnd(i,UNIT*5+1000*i+17); run(["put",d,"f%d"%i],b); exp["f%d"%i]=bytearray(b)
r=random.Random(5)
for i in range(4):
    off=r.randrange(0,UNIT*5); w=rnd(100+i,r.randrange(1,9000))
    run(["write",d,"f1","--offset",str(off)],w); e=exp["f1"]; e[off:off+len(w)]=w
def diff(tag):
    g=run(["get",d,"f1"]); a=g.stdout; e=bytes(exp["f1"])
    bad=[i for i in range(len(e)) if i>=len(a) or a[i]!=e[i]]
    print(tag,"rc",g.returncode,"bad",len(bad), (bad[0],bad[-1]) if bad else "", g.stderr.decode()[:200])
os.system("ls -la %s/oss-1/objects; cat %s/oss-1/exaraid-extents.json; echo; xxd %s/oss-1/exaraid-extents.log | tail -3" % (d,d,d))
os.remove(d+"/oss-1/objects/18446744073709551615.cache")
mode=sys.argv[1]
if mode=="puth":
    p=run(["put",d,"h"],rnd(998,UNIT*3+5)); print("put h",p.returncode)
elif mode=="writeg":
    p=run(["write",d,"f0","--offset","100000"],rnd(5,3000)); print("write f0",p.returncode)
elif mode=="status":
    pass
os.system("ls -la %s/oss-1/objects; cat %s/oss-1/exaraid-extents.json; echo; xxd %s/oss-1/exaraid-extents.log | tail -3" % (d,d,d))
diff("after "+mode)
