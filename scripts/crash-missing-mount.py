#!/usr/bin/env python3
"""Review tool (engineer s4e, finding E13; not CI): for kill points K in 4,8,12,16,20 of a write
(crash-geom.py scenario `write`, raid6 k=4 over 9 OSSs, 64 KiB) and a missing OSS directory o in
0,2,4,6,8: kill -9 the write, run `status` (recovery) with oss-o moved away, move it back, check
every file (old-or-new for the killed write), then a second failure (1,3,5,7), scrub.
Usage: crash-missing-mount.py rmw|wcl|delayed     Needs /tmp/s4e-killshim.so. Scratch: $MNT_DIR (default /tmp/s4e-mnt4).
Prints one line per (K, o) with a problem and "DONE PATH N" (N = cases with a problem)."""
import os, sys, subprocess, shutil
PATH=sys.argv[1]; sys.argv=["x"]
here=os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash-geom.py")
cg=type(sys)("cg"); src=open(here).read().replace('\nif __name__ == "__main__":\n    main()\n','\n')
exec(compile(src,"cg","exec"), cg.__dict__)
d=os.environ.get("MNT_DIR", "/tmp/s4e-mnt4")  # scratch (MNT_DIR: a private one beside other users)
found=0
for k in (4, 8, 12, 16, 20):
  for o in (0, 2, 4, 6, 8):
    files, cmd, inp, finish, fail = cg.setup("write", "raid6:4", 9, 65536, PATH, 7, d)
    p=cg.run(cmd, inp, kill_n=k)
    if p.returncode != -9: continue
    shutil.move(d+"/oss-%d"%o, d+"/away")
    q=subprocess.run([cg.E,"store","status",d],capture_output=True)   # recovery with OSS o missing
    shutil.move(d+"/away", d+"/oss-%d"%o)
    bad=cg.check(d, files, "kill %d, OSS %d missing at recovery, back" % (k, o))
    if not bad:
        for second in (1, 3, 5, 7):
            subprocess.run([cg.E,"store","fail",d,"--oss",str(second)],capture_output=True)
            bad += cg.check(d, files, "kill %d, OSS %d missing at recovery, then OSS %d failed" % (k, o, second))
            subprocess.run([cg.E,"store","online",d,"--oss",str(second)],capture_output=True)
            if bad: break
    s=subprocess.run([cg.E,"store","scrub",d],capture_output=True)
    if bad or s.returncode: found+=1; print(bad[:2], "scrub rc", s.returncode, s.stdout.decode()[-150:].replace("\n"," / "))
print("DONE", PATH, found)
