#!/usr/bin/env python3
"""Repro sweep (review s5r, finding R5 on other codes; not CI): WCL, 64 KiB unit, file f of 12 units, two
cached writes over stripe 0 (5000+128 KiB, 72536+74536 B), `fail --oss F` for every F, then a 4 KiB write at offset
0 killed -9 at call K in 8,10,12,14,16; get f must be old-or-new in 0..4096 and exact elsewhere.
Usage: repro-wcl-failed-kill-codes.py rs:8:3 13 | xcode:7 9   (CODE OSS). Scratch: S5R_DIR, else $REPRO_DIR/s5r-rp-r5g (default: under a new temporary directory); needs
/tmp/s5r-killshim.so. Prints each failing case and "DONE CODE bad of n"."""
import os, random, shutil, subprocess, sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
E=os.environ.get("EXARAID", "/work/target-s5r/release/exaraid"); d=(os.environ.get("S5R_DIR") or scratch("s5r-rp-r5g"))
code, noss, unit = sys.argv[1], int(sys.argv[2]), 65536
def run(a, inp=b"", env=None): return subprocess.run([E,"store"]+a, input=inp, capture_output=True, env=env)
p=code.split(":")
ca = ["--code","rs","--k",p[1],"--m",p[2]] if p[0]=="rs" else ["--code",p[0],"--p",p[1]]
bad=0; n=0
for failed in range(noss):
  for K in (8, 10, 12, 14, 16):
    r=random.Random(7); shutil.rmtree(d, ignore_errors=True)
    run(["init",d,"--oss",str(noss),"--stripe-unit",str(unit),"--write-path","wcl"]+ca)
    b=bytearray(r.randbytes(unit*12)); run(["put",d,"f"],bytes(b))
    for off,ln in ((5000,unit*2),(unit+7000,unit+9000)):
        w=r.randbytes(ln); assert run(["write",d,"f","--offset",str(off)],w).returncode==0; b[off:off+ln]=w
    run(["fail",d,"--oss",str(failed)])
    w=r.randbytes(4096)
    p=run(["write",d,"f","--offset","0"],w,dict(os.environ,LD_PRELOAD="/tmp/s5r-killshim.so",KILLN=str(K)))
    new=bytearray(b); new[0:4096]=w
    g=run(["get",d,"f"]); n+=1
    ok = g.returncode==0 and len(g.stdout)==len(b) and all(x==y or x==z for x,y,z in zip(g.stdout[:4096],b[:4096],new[:4096])) and g.stdout[4096:]==bytes(b[4096:])
    if not ok:
        bad+=1; print(code,"failed",failed,"K",K,"rc",g.returncode,g.stderr.decode(errors="replace")[-160:].strip(), flush=True)
print("DONE",code,bad,"of",n)
