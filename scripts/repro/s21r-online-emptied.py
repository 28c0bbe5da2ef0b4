#!/usr/bin/env python3
# s21r: an OSS failed, degraded writes acknowledged, then its zone files emptied or cut to half (the disk came
# back damaged), `online` (sometimes killed at online-stripe / online-back / journal-record:2 and rerun), then
# `get` exact, and exact again with two other OSSs failed. usage: EXARAID=... s21r-online-emptied.py WP TRIALS SEED
import os, random, subprocess, sys, shutil, glob
E=os.environ['EXARAID']; S=os.environ.get('DIR', '/tmp/s21r-x8'); wp=sys.argv[1]; trials=int(sys.argv[2]); rnd=random.Random(int(sys.argv[3]))
def run(a, i=b'', env=None):
    e=dict(os.environ); e.update(env or {}); return subprocess.run([E,'store']+a, input=i, capture_output=True, env=e)
bad=0
for t in range(trials):
    shutil.rmtree(S, ignore_errors=True); run(['init',S,'--oss','6','--code','raid6','--stripe-unit','4096','--write-path',wp])
    size=rnd.randrange(4096,60000); m=bytearray(rnd.randbytes(size)); run(['put',S,'f'],bytes(m))
    o=rnd.randrange(6); run(['fail',S,'--oss',str(o)])
    for j in range(2):
        off=rnd.randrange(size); d=rnd.randbytes(rnd.randrange(1,12000))
        r=run(['write',S,'f','--offset',str(off)],d)
        if r.returncode!=0: print('write refused', r.stderr[-200:]); continue
        if len(m)<off+len(d): m.extend(b'\0'*(off+len(d)-len(m)))
        m[off:off+len(d)]=d
    for f in glob.glob(S+'/oss-%d/objects/*'%o):
        if rnd.random()<0.5: open(f,'wb').close()
        else: os.truncate(f, os.path.getsize(f)//2)
    k = rnd.choice([None, 'online-stripe:1', 'online-back:1', 'journal-record:2'])
    r=run(['online',S,'--oss',str(o)],b'',{'EXARAID_KILL_AT':k} if k else {})
    if r.returncode in (-9,137): r=run(['online',S,'--oss',str(o)])
    g=run(['get',S,'f'])
    if g.returncode!=0 or g.stdout!=bytes(m):
        bad+=1; d=[i for i in range(min(len(m),len(g.stdout))) if g.stdout[i]!=m[i]]
        print('BAD',t,'oss',o,'kill',k,'online rc',r.returncode,r.stderr[-200:],'get',g.returncode,len(d),d[:3],g.stderr[-200:])
    x=rnd.choice([i for i in range(6) if i!=o]); run(['fail',S,'--oss',str(x)]); y=rnd.choice([i for i in range(6) if i not in (o,x)]); run(['fail',S,'--oss',str(y)])
    g=run(['get',S,'f'])
    if g.returncode!=0 or g.stdout!=bytes(m):
        bad+=1; d=[i for i in range(min(len(m),len(g.stdout))) if g.stdout[i]!=m[i]]
        print('BAD two failed',t,'online oss',o,'kill',k,'failed',x,y,'get',g.returncode,len(d),d[:3],g.stderr[-200:])
print(wp,'trials',trials,'bad',bad)
shutil.rmtree(S, ignore_errors=True)
