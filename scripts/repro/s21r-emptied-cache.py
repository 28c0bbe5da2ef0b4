#!/usr/bin/env python3
# s21r: WCL. A file is put, two writes acknowledged (cached), a third write cut at a named kill point (KPS,
# plan order), then one OSS (not a torn one) has its cache zone file (MODE=cache), home zone files (home) or
# both (all) emptied before the open; `get`: every byte acknowledged (old/new for the cut write; zeros past
# the old end) or LOST named. Deterministic per SEED. usage: [KPS=journal-record,write-torn-block] s21r-emptied-cache.py raid6|rs TRIALS SEED MODE
import os, random, subprocess, sys, shutil, glob
E=os.environ['EXARAID']; S=os.environ.get('DIR', '/tmp/s21r-x7'); code=sys.argv[1]; trials=int(sys.argv[2]); rnd=random.Random(int(sys.argv[3])); mode=sys.argv[4]
def run(a, i=b'', env=None):
    e=dict(os.environ); e.update(env or {}); return subprocess.run([E,'store']+a, input=i, capture_output=True, env=e)
bad=killed=lost=0
for t in range(trials):
    shutil.rmtree(S, ignore_errors=True); run(['init',S,'--oss','6','--code',code,'--stripe-unit','4096','--write-path','wcl'] + (['--k','4','--m','2'] if code=='rs' else []))
    size=rnd.randrange(4096,60000); m=bytearray(rnd.randbytes(size)); run(['put',S,'f'],bytes(m))
    for j in range(2):
        off=rnd.randrange(size); d=rnd.randbytes(rnd.randrange(1,12000))
        assert run(['write',S,'f','--offset',str(off)],d).returncode==0
        if len(m)<off+len(d): m.extend(b'\0'*(off+len(d)-len(m)))
        m[off:off+len(d)]=d
    off=rnd.randrange(size); d=rnd.randbytes(rnd.randrange(1,12000)); alt=bytearray(m)
    if len(alt)<off+len(d): alt.extend(b'\0'*(off+len(d)-len(alt)))
    alt[off:off+len(d)]=d
    k='%s:%d'%(rnd.choice(os.environ.get('KPS','journal-record,write-torn-block').split(',')), rnd.randrange(1,5))
    r=run(['write',S,'f','--offset',str(off)],d,{'EXARAID_KILL_AT':k,'EXARAID_KILL_IN_PLAN_ORDER':'1'})
    if r.returncode not in (-9,137): continue
    killed+=1
    torn=[l.split('/oss-')[1].split()[0] for l in r.stderr.decode().split('\n') if '/oss-' in l]
    o=rnd.choice([i for i in range(6) if str(i) not in torn])
    for f in glob.glob(S+'/oss-%d/objects/*'%o):
        if mode=='cache' and not f.endswith('.cache'): continue
        if mode=='home' and f.endswith('.cache'): continue
        open(f,'wb').close()
    g=run(['get',S,'f'])
    if g.returncode==0:
        got=g.stdout
        w=[i for i in range(len(got)) if not (got[i]==(m[i] if i<len(m) else 0) or (i<len(alt) and got[i]==alt[i]))]
        if len(got) not in (len(m),len(alt)) or w: bad+=1; print('WRONG trial',t,k,'torn',torn,'emptied',o,mode,len(got),len(m),len(alt),len(w),w[:3],'zeros',sum(1 for i in w if got[i]==0))
    elif b'lost' in g.stderr.lower(): lost+=1; print('  lost',t,k,'torn',torn,'emptied',o,mode,'size',size,'last write',off,len(d),g.stderr[-260:])
    else: bad+=1; print('GET FAILED',t,k,o,g.stderr[-300:])
print(code, mode, 'trials',trials,'killed',killed,'lost',lost,'bad',bad)
shutil.rmtree(S, ignore_errors=True)
