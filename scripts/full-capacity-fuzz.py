#!/usr/bin/env python3
"""Random put/write/rm/fail/rebuild/delayed windows on a store with a tiny --oss-capacity (review s6r).
After every step every file of the model is read (get) and ls compared. Found R6-1 (KEEP=1 stops at a store
that no longer opens) and R6-2. The model follows today's documented behaviour (docs/store.md, "A full disk
and put, write"; session 15: a refused write of a new name leaves no name, a failed write's error says what
of it is durable). Usage: EXARAID=... full-capacity-fuzz.py CODE PATH UNIT CAPACITY SEED
  CODE: raid5 raid6 rs dcode hdp evenodd; PATH: rmw wcl delayed. V=1 prints every op; REC=DIR records a
  replay script (DIR/replay.sh) of the mutating commands."""
import os, random, re, subprocess, sys, shutil, json
E=os.environ["EXARAID"]
REC=os.environ.get("REC")
NREC=[0]
TOKNAME={}  # delayed window token -> file name (replay scripts use the token of a new run)
def run(a, inp=b""):
    if REC and a[0] not in ("ls","get","status"):
        NREC[0]+=1
        f="%s/in%03d"%(REC,NREC[0]); open(f,"wb").write(inp)
        import shlex
        if a[:2]==["delayed","start"]:
            line="T_%s=$($E store %s < %s); echo rc=$?\n" % (a[3].encode().hex(), " ".join(shlex.quote(x) for x in a), f)
        elif a[:2]==["delayed","end"]:
            line="$E store delayed end %s \"$T_%s\" < %s; echo rc=$?\n" % (shlex.quote(a[2]), TOKNAME.get(a[3], "none").encode().hex(), f)
        else:
            line="$E store %s < %s; echo rc=$?\n" % (" ".join(shlex.quote(x) for x in a), f)
        with open(REC+"/replay.sh","a") as fh: fh.write(line)
    return subprocess.run([E,"store"]+a, input=inp, capture_output=True)
code, path, unit, cap, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
cargs = {"raid6":["--code","raid6","--k","4"], "dcode":["--code","dcode","--p","5"], "hdp":["--code","hdp","--p","5"], "evenodd":["--code","evenodd","--p","5"], "rs":["--code","rs","--k","3","--m","2"], "raid5":["--code","raid5","--k","4"]}[code]
nos = {"raid6":7,"dcode":6,"hdp":5,"evenodd":8,"rs":6, "raid5":6}[code]
rng = random.Random(seed)
d=os.path.join(os.environ.get("FULL_DIR","/tmp/s6r-full"), "%s-%s"%(code,path)); shutil.rmtree(d, ignore_errors=True)
p=run(["init",d,"--oss",str(nos),"--stripe-unit",str(unit),"--write-path",path,"--oss-capacity",str(cap)]+cargs+os.environ.get("INIT_EXTRA","").split()); assert p.returncode==0, p.stderr
model={}; refused=0; acked=0; problems=0; windows={}
for step in range(120):
    op = rng.choice(["put","put","write","write","write","rm","fail","rebuild","start","end"])
    n = "f%d" % rng.randrange(6)
    if op=="put":
        data=rng.randbytes(rng.randrange(0, unit*12))
        q=run(["put",d,n],data)
        if q.returncode==0: model[n]=bytearray(data); acked+=1
        else:
            refused+=1; err=q.stderr.decode()
            if "full" not in err and "window" not in err and "failed" not in err: print("put err", err[-300:])
    elif op=="write":
        cur=model.get(n, bytearray())
        off=rng.randrange(0, len(cur)+unit); data=rng.randbytes(rng.randrange(1, unit*3))
        q=run(["write",d,n,"--offset",str(off)],data)
        if q.returncode==0:
            if len(cur)<off+len(data): cur.extend(b"\0"*(off+len(data)-len(cur)))
            cur[off:off+len(data)]=data; model[n]=cur; acked+=1
        else:
            # The documented outcomes of a failed `write` (docs/store.md, "A full disk and put,
            # write"; Store::write_from): (1) its bytes durable and only the upkeep after it
            # failed ("this write's bytes are written and durable"): the file has them; (2) part
            # of the input durable ("the first N bytes of the input are written"): the file
            # has those N; (3) refused, "nothing was written": the file unchanged, and a NEW
            # name refused leaves no name behind (R6-2 fixed in session 6: the old model
            # created the name and reported false problems). Anything else is printed and the
            # model kept, so a change the error did not announce shows as a PROBLEM below.
            refused+=1; err=q.stderr.decode()
            part=re.search(r"the first (\d+) bytes of the input are written at offsets (\d+)\.\.", err)
            if "this write's bytes are written and durable" in err: keep=len(data)
            elif part: keep=int(part.group(1)); assert int(part.group(2))==off, err
            else:
                keep=0
                if "nothing was written" not in err and "nothing of it was written" not in err: print("write err (was something written?)", err[-300:])
            if keep:
                if len(cur)<off+keep: cur.extend(b"\0"*(off+keep-len(cur)))
                cur[off:off+keep]=data[:keep]; model[n]=cur; acked+=1
    elif op=="rm":
        q=run(["rm",d,n])
        if q.returncode==0: model.pop(n,None)
    elif op=="fail":
        st=json.loads(run(["status",d,"--json"]).stdout)
        if all(o["healthy"] for o in st["oss"]) and not windows:
            o=rng.randrange(nos); q=run(["fail",d,"--oss",str(o)]); print("fail oss", o, q.stdout.decode()) if os.environ.get("V") else None
    elif op=="rebuild":
        st=json.loads(run(["status",d,"--json"]).stdout)
        for o in st["oss"]:
            if not o["healthy"]:
                q=run(["rebuild",d,"--oss",str(o["index"])])
                if q.returncode: print("rebuild rc",q.returncode,q.stderr.decode()[-300:])
    elif op=="start" and path=="delayed":
        q=run(["delayed","start",d,n])
        if q.returncode==0: windows[n]=q.stdout.decode().strip(); TOKNAME[windows[n]]=n; model.setdefault(n, bytearray())
    elif op=="end" and windows:
        n=rng.choice(list(windows)); q=run(["delayed","end",d,windows.pop(n)])
        if q.returncode: print("end rc", q.returncode, q.stderr.decode()[-300:])
    print("op", step, op, n, "rc", (q.returncode if "q" in dir() and q is not None else None), (q.stderr.decode()[-200:] if "q" in dir() and q is not None else "")) if os.environ.get("V") else None
    q=None
    # check
    ls=run(["ls",d,"--json"])
    if ls.returncode:
        print("ls rc", ls.stderr.decode()[-300:]); problems+=1
        if os.environ.get("KEEP"): sys.exit(3)
        break
    names={e["name"]:e["size_bytes"] for e in json.loads(ls.stdout)}
    for m,data in model.items():
        g=run(["get",d,m])
        if g.returncode!=0 or g.stdout!=bytes(data):
            print("step",step,op,"PROBLEM get",m,g.returncode,len(g.stdout),len(data),g.stderr.decode()[-300:]); problems+=1
            model[m]=bytearray(g.stdout) if g.returncode==0 else model[m]
    if set(names)!=set(model): print("step",step,"names",sorted(names),sorted(model)); problems+=1; model={k:v for k,v in model.items() if k in names}
for n,t in windows.items(): run(["delayed","end",d,t])
s=run(["scrub",d]); print("scrub rc", s.returncode, s.stdout.decode()[-200:])
print(code,path,unit,cap,"acked",acked,"refused",refused,"problems",problems)
shutil.rmtree(d, ignore_errors=True)
