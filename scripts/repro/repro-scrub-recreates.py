#!/usr/bin/env python3
"""Repro (review s4e, finding E8 repro D; not CI): the WCL cache zone file of OSS 1 deleted; every
file still reads exactly (decoded); `scrub --repair` lists ONE corrupt cache element (slot 5),
repairs it and so recreates the zone file with slots 0..4 as holes: f1 then reads wrong bytes
(zeros) with exit 0, for good after the next settle.
Usage: repro-scrub-recreates.py    (prints "after repair f1 rc 0 bad 8136" when the bug is there)
Scratch: $REPRO_DIR/s4e-czr (default: under a new temporary directory) (delete it afterwards). EXARAID: the binary."""
import os, subprocess, random, shutil
import sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
E=os.environ.get("EXARAID", "/work/target-s4e/release/exaraid"); d=scratch("s4e-czr"); UNIT=65536
def run(a, inp=b""): return subprocess.run([E,"store"]+a, input=inp, capture_output=True)
def rnd(s,n): return random.Random(s).randbytes(n)
shutil.rmtree(d, ignore_errors=True)
run(["init",d,"--oss","6","--code","raid6","--stripe-unit",str(UNIT),"--write-path","wcl"])
exp={}
for i in range(3):
    b=rnd(i,UNIT*5+1000*i+17); run(["put",d,"f%d"%i],b); exp["f%d"%i]=bytearray(b)
r=random.Random(5)
for i in range(12):
    f="f%d"%r.randrange(3)
    off=r.randrange(0,UNIT*5); w=rnd(100+i,r.randrange(1,9000))
    assert run(["write",d,f,"--offset",str(off)],w).returncode==0
    exp[f][off:off+len(w)]=w
def check(tag):
    for f,e in exp.items():
        g=run(["get",d,f]); a=g.stdout
        bad=sum(1 for i in range(len(e)) if i>=len(a) or a[i]!=e[i]) if g.returncode==0 else -1
        print(tag,f,"rc",g.returncode,"bad",bad,g.stderr.decode()[:150])
print(os.path.getsize(d+"/oss-1/objects/18446744073709551615.cache"))
os.remove(d+"/oss-1/objects/18446744073709551615.cache")
check("deleted")
s=run(["scrub",d,"--repair"]); print("repair",s.returncode,s.stdout.decode()[-500:])
print(os.path.exists(d+"/oss-1/objects/18446744073709551615.cache") and os.path.getsize(d+"/oss-1/objects/18446744073709551615.cache"))
check("after repair")
run(["put",d,"g"],b"x"); run(["rm",d,"g"])
check("after settle")
