#!/usr/bin/env python3
"""Repro (review s4e, finding E10b; not CI): a zeroed 8 KiB range in a WCL cache zone file that
covers a cached block AND its slot's crc area reads as "never written" zeros: get exits 0 with
wrong bytes, scrub sees nothing, and the next settle makes it permanent.
Usage: repro-zeroed-cache.py OSS   (the OSS whose cache zone to zero; 0 holds the cached block)
Env: none; EXARAID binary path is E below. Scratch: $REPRO_DIR/s4e-cz3 (default: under a new temporary directory) (removed by the caller)."""
import os, subprocess, random, shutil
import sys
import tempfile


def scratch(name):
    """The scratch directory `name`: under $REPRO_DIR, else under a new temporary directory
    (printed: delete it afterwards). Two runs at once never share one unless told to."""
    base = os.environ.get("REPRO_DIR") or tempfile.mkdtemp(prefix="exaraid-repro-")
    print("scratch directory: %s" % os.path.join(base, name), file=sys.stderr, flush=True)
    return os.path.join(base, name)
E=os.environ.get("EXARAID", "/work/target-s4e/release/exaraid"); d=scratch("s4e-cz3"); UNIT=65536
def run(a, inp=b""): return subprocess.run([E,"store"]+a, input=inp, capture_output=True)
def rnd(s,n): return random.Random(s).randbytes(n)
shutil.rmtree(d, ignore_errors=True)
run(["init",d,"--oss","6","--code","raid6","--stripe-unit",str(UNIT),"--write-path","wcl"])
f=bytearray(rnd(1,UNIT*8)); run(["put",d,"f"],bytes(f))
# one write that fills the last 4 KiB block of element 0 (bytes 61440..65536) -> cached on f's first OSS
w=rnd(2,4096); assert run(["write",d,"f","--offset","61440"],w).returncode==0; f[61440:65536]=w
print(run(["status",d]).stdout.decode().splitlines()[-2])
for o in range(6):
    p="%s/oss-%d/objects/18446744073709551615.cache"%(d,o)
    if os.path.exists(p): print(o, os.path.getsize(p))
import sys
o=int(sys.argv[1])
p="%s/oss-%d/objects/18446744073709551615.cache"%(d,o)
with open(p,"r+b") as fh:
    fh.seek(61440); fh.write(bytes(8192))
g=run(["get",d,"f"]); a=g.stdout
bad=[i for i in range(len(f)) if i>=len(a) or a[i]!=f[i]]
print("get rc",g.returncode,"bad",len(bad),(bad[0],bad[-1]) if bad else "",g.stderr.decode()[:300])
s=run(["scrub",d]); print("scrub",s.returncode,s.stdout.decode()[-400:])
run(["fail",d,"--oss",str(o)]); g=run(["get",d,"f"]); print("with OSS %d failed: get rc"%o, g.returncode, "exact" if g.stdout==bytes(f) else "WRONG"); run(["online",d,"--oss",str(o)])
run(["put",d,"g"],b"x"*100); run(["rm",d,"g"])  # a settle
s=run(["scrub",d]); print("after settle scrub",s.returncode,s.stdout.decode()[-200:])
run(["fail",d,"--oss",str(o)]); g=run(["get",d,"f"]); print("after settle, OSS %d failed: get rc"%o, g.returncode, "exact" if g.stdout==bytes(f) else "WRONG (permanent)")
