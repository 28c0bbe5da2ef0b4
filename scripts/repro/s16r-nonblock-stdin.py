#!/usr/bin/env python3
"""s16r: `put` / `write` with stdin a pipe in O_NONBLOCK mode whose writer pauses (EAGAIN),
and with fd 0 open write-only (EBADF on read). usage: EXARAID=... s16r-nonblock-stdin.py STORE NAME"""
import os, subprocess, sys, time, fcntl
B = os.environ["EXARAID"]; S = sys.argv[1]; N = sys.argv[2]
r, w = os.pipe()
fl = fcntl.fcntl(r, fcntl.F_GETFL); fcntl.fcntl(r, fcntl.F_SETFL, fl | os.O_NONBLOCK)
p = subprocess.Popen([B, "store", "put", S, N], stdin=r, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
os.close(r)
os.write(w, b"A" * 1000); time.sleep(1.0); 
try:
    os.write(w, b"B" * 1000)
except BrokenPipeError:
    print("reader gone before the second part")
os.close(w)
o, e = p.communicate(timeout=60)
print("nonblock put rc", p.returncode, e.decode()[:300])
g = subprocess.run([B, "store", "ls", S], capture_output=True); print(g.stdout.decode())
