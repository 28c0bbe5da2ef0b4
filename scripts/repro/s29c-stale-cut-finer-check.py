#!/usr/bin/env python3
# usage: [KMAX=K] python3 s29c-stale-cut-finer-check.py xcode   (geometry in /tmp/s29c-geo, see s29c-stale-cut-model.py)
# KMAX (s30a): the most running parity rewrites of a killed recovery modelled (0: one crash
# alone); unset, all of them.
# s29c: the finer check (consistency over known positions, blocks a killed recovery
# rewrote as unknown) on rows stale_beside_cut_write takes unchecked (versions told, no
# version checkable), after one cut write (k = 0) or a recovery killed after k parity
# rewrites: crash alone ('bad' would be a new LOSS) and with one stale data element.
import importlib.util, sys, random
spec = importlib.util.spec_from_file_location("sim", sys.argv[2] if len(sys.argv) > 2 else __import__("os").path.join(__import__("os").path.dirname(__file__), "s29c-stale-cut-model.py")); sim = importlib.util.module_from_spec(spec); spec.loader.exec_module(sim)
name=sys.argv[1]; C=sim.Code(name); rnd=random.Random(11); rv=lambda: rnd.getrandbits(32)|1
npos=len(C.pos); stats={}
sim.TOLD_KNOWN=False
def judge(disk, acked, inflight, first, newc):
    st={i: ("New" if disk[i]==newc[i] else "Old") for i in sorted(inflight)}
    enc=C.encode([disk[j] if j in acked else 0 for j in range(C.k)])
    for p in range(C.k, npos):
        if p in st and st[p] != "New" and disk[p] == enc[p]:
            st[p] = "Torn"
    vs=sim.versions(C,disk,acked,inflight,st,first,newc)
    return sim.finer_check(C,vs,inflight)
for a in range(C.k):
  for b in range(a,C.k):
    wr=set(range(a,b+1)); wpar={C.k+q for q in range(len(C.terms)) if C.chain[C.k+q]&wr}; inflight=wr|wpar
    acked=set(range(C.k)); first={j:False for j in range(C.k)}
    old=[rv() for j in range(C.k)]; oldc=C.encode(old)
    newd=list(old)
    for j in wr: newd[j]=rv()
    newc=C.encode(newd)
    for cm in range(1<<C.n):
      landed={i for i in inflight if (cm>>C.col[i])&1}
      disk1=list(oldc)
      for i in landed: disk1[i]=newc[i]
      r1=sim.check_row(C,disk1,acked,inflight,first,newc)
      if r1[0]!="Agrees": continue
      encd=C.encode([disk1[j] for j in range(C.k)])
      for kk in range(0,min(len(C.terms),int(__import__("os").environ.get("KMAX","99")))+1):
        d2=list(disk1)
        for p in range(C.k,C.k+kk): d2[p]=encd[p]
        tag="k=0" if kk==0 else "k>0"
        r=sim.check_row(C,d2,acked,inflight,first,newc)
        if r[:2]==("Agrees","versions_told_unchecked"):
          f=judge(d2,acked,inflight,first,newc)
          stats[(tag,"crash alone",f)]=stats.get((tag,"crash alone",f),0)+1
        for j in range(C.k):
          if j in wr: continue
          d=[0]*C.k; d[j]=rv(); D=C.encode(d); S=C.col[j]
          d3=list(d2)
          for i in range(npos):
            if C.col[i]==S and D[i] and i not in inflight and not (kk and C.k<=i<C.k+kk): d3[i]^=D[i]
          r2=sim.check_row(C,d3,acked,inflight,first,newc)
          if r2[:2]!=("Agrees","versions_told_unchecked"): continue
          f=judge(d3,acked,inflight,first,newc)
          stats[(tag,"stale data",f)]=stats.get((tag,"stale data",f),0)+1
for k,v in sorted(stats.items()): print(name,k,v)
