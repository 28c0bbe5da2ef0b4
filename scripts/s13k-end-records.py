#!/usr/bin/env python3
"""Which journal records a raid5 delayed END appends before its parity crcs: END killed at
journal-record:n (plan order) for n = 1..4 on the store of s12u-end-kill.py, and the kinds
of the records after the setup printed. usage: s13k-end-records.py EXARAID"""
import os,subprocess,sys,shutil,json,tempfile
E=sys.argv[1]; base=tempfile.mkdtemp(prefix="s13k-end-"); d=base+"/store"; p=base+"/pristine"
def run(a,i=b"",env=None):
    e=dict(os.environ); e.update(env or {})
    return subprocess.run([E]+a,input=i,capture_output=True,env=e)
def pattern(seed,n): return bytes(((i*31+seed)&0xFF)^((i>>8)&0xFF) for i in range(n))
run(["store","init",d,"--oss","5","--stripe-unit","4096","--write-path","delayed","--window-timeout-ms","600000","--code","raid5"])
run(["store","put",d,"f"],pattern(1,60000))
tok=run(["store","delayed","start",d,"f"]).stdout.decode().strip()
for i,(o,n) in enumerate([(5000, 3000), (9000, 6000), (16484, 3000), (25076, 4000), (32768, 8192), (45056, 4096)]):
    run(["store","write",d,"f","--offset",str(o)],pattern(10+i,n))
shutil.copytree(d,p)
L0=len(open(d+"/journal","rb").read())
for n in (1,2,3,4):
    shutil.rmtree(d); shutil.copytree(p,d)
    run(["store","delayed","end",d,tok],env={"EXARAID_KILL_AT":f"journal-record:{n}","EXARAID_KILL_IN_PLAN_ORDER":"1"})
    j=open(d+"/journal","rb").read(); at=L0; kinds=[]
    while at+8<=len(j):
        ln=int.from_bytes(j[at:at+4],"little"); rec=json.loads(j[at+8:at+8+ln])["rec"]
        kinds.append(list(rec.keys())[0] if isinstance(rec,dict) else rec); at+=8+ln
    print(n,kinds)
shutil.rmtree(base)
