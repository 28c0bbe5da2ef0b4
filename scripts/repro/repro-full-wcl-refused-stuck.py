#!/usr/bin/env python3
"""Review s6r, R6-7: on a WCL store whose OSS disks are really full (tmpfs mounts, ENOSPC), a
`write` refused "OSS ... is full ... nothing was written" leaves its planner Input in the journal;
every later open's recovery writes into the full OSS's cache zone file (strace: a 64-byte crc
pwrite into a hole of 18446744073709551615.cache -> ENOSPC) and fails, so EVERY command (ls,
status, get, rm, fail, scrub) fails with the same "is full" error. No kill, no failed OSS.
Freeing space outside the store (remount bigger) brings it back (ls rc 0, scrub clean).
Needs root (mount). Usage: scripts/repro/repro-full-wcl-refused-stuck.py "raid6 --k 4" 6 SEED [MB]
  (also "raid5 --k 4" 5, "xcode --p 5" 6; seeds 1-3 all stuck; WPATH=rmw / delayed: not stuck).
  EXARAID=..., ROOT dir /tmp/s6r-fr (env FR_DIR); KEEP=1 keeps the mounts. Exit 1 = reproduced."""
import os, random, subprocess, sys
E=os.environ.get("EXARAID", "target/release/exaraid"); R=os.environ.get("FR_DIR", "/tmp/s6r-fr")
code=sys.argv[1].split(); nos=int(sys.argv[2]); seed=int(sys.argv[3]); mb=sys.argv[4] if len(sys.argv)>4 else "2"
def sh(*a): subprocess.run(a, capture_output=True)
for i in range(nos): sh("umount", "%s/m%d"%(R,i))
sh("rm","-rf",R); os.makedirs(R)
dirs=[]
for i in range(nos):
    m="%s/m%d"%(R,i); os.makedirs(m); sh("mount","-t","tmpfs","-o","size=%sm"%mb,"tmpfs",m); dirs.append(m+"/oss")
d=R+"/store"
def run(a,inp=b""): return subprocess.run([E,"store"]+a,input=inp,capture_output=True)
assert run(["init",d,"--oss-dirs",",".join(dirs),"--code"]+code+["--stripe-unit","65536","--write-path",os.environ.get("WPATH","wcl")]).returncode==0
rng=random.Random(seed); sizes={}
for step in range(200):
    n="f%d"%rng.randrange(6); off=rng.randrange(0, sizes.get(n,0)+100000); ln=rng.randrange(1,300000)
    p=run(["write",d,n,"--offset",str(off)],rng.randbytes(ln))
    if p.returncode==0: sizes[n]=max(sizes.get(n,0),off+ln); continue
    q=run(["ls",d])
    print("step",step,"write",n,off,ln,"rc",p.returncode,p.stderr.decode()[:100].strip(),"| ls rc",q.returncode,q.stderr.decode()[:100].strip())
    if q.returncode: print("STUCK"); break
    if step>150: break
if os.environ.get("KEEP")!="1":
    for i in range(nos): sh("umount","%s/m%d"%(R,i))
    sh("rm","-rf",R)
sys.exit(1 if q.returncode else 0)
