#!/usr/bin/env python3
# s27b cost: bytes read / written by one `store write` (the sum of pread64 / pwrite64 return values
# under `strace -f`: zone files, state and journal alike), two binaries side by side on the same
# scene (hdp p=5 / 4 OSSs, hcode p=5 / 6, dcode p=5 / 5; rmw, 16 KiB elements; a put of 2,000,000
# bytes, then one write of each scene), plus the median wall time of REPS alternating runs of that
# write (noise on a shared machine: the byte counts are the measurement). Needs strace.
# usage: s27b-write-io-bytes.py BASE_BIN NEW_BIN DIR REPS
# example: python3 scripts/repro/s27b-write-io-bytes.py /tmp/base-bin /tmp/new-bin /tmp/s27b-cost 5
import os, random, re, subprocess, sys, shutil, time
BASE, NEW, D, REPS = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
UNIT = 16384
codes = [('hdp', ['--oss', '4', '--code', 'hdp', '--p', '5']),
         ('hcode', ['--oss', '6', '--code', 'hcode', '--p', '5']),
         ('dcode', ['--oss', '5', '--code', 'dcode', '--p', '5'])]
def rb(seed, n):
    return random.Random(seed).randbytes(n)
PUT = 2_000_000
scenes = [('unaligned 49919+61947', 49919, 61947), ('4 KiB aligned at 8192', 8192, 4096),
          ('1 MiB at 0 (whole stripes)', 0, 1 << 20), ('300000 at 123457', 123457, 300000)]
def setup(binary, args, S):
    shutil.rmtree(S, ignore_errors=True)
    subprocess.run([binary, 'store', 'init', S, '--stripe-unit', str(UNIT), '--write-path', 'rmw'] + args, check=True, capture_output=True)
    subprocess.run([binary, 'store', 'put', S, 'f'], input=rb(1, PUT), check=True, capture_output=True)
def io_bytes(binary, S, off, data):
    tr = D + '/trace'
    subprocess.run(['strace', '-f', '-e', 'trace=pread64,pwrite64', '-o', tr, binary, 'store', 'write', S, 'f', '--offset', str(off)],
                   input=data, check=True, capture_output=True)
    r = w = 0
    for l in open(tr):
        l = l.strip()
        m = re.search(r'= (\d+)$', l)
        if not m or 'unfinished' in l: continue
        if 'pread64(' in l or '<... pread64 resumed>' in l: r += int(m.group(1))
        elif 'pwrite64(' in l or '<... pwrite64 resumed>' in l: w += int(m.group(1))
    return r, w
os.makedirs(D, exist_ok=True)
for name, args in codes:
    for sname, off, n in scenes:
        data = rb(2, n)
        res = {}
        for label, b in (('base', BASE), ('new', NEW)):
            S = D + '/s-' + label
            setup(b, args, S)
            res[label] = io_bytes(b, S, off, data)
        # wall time: alternating, fresh store each time not needed (an overwrite of the same range)
        t = {'base': [], 'new': []}
        for rep in range(REPS):
            for label, b in (('base', BASE), ('new', NEW)) if rep % 2 == 0 else (('new', NEW), ('base', BASE)):
                S = D + '/s-' + label
                t0 = time.monotonic()
                subprocess.run([b, 'store', 'write', S, 'f', '--offset', str(off)], input=data, check=True, capture_output=True)
                t[label].append(time.monotonic() - t0)
        med = {k: sorted(v)[len(v) // 2] for k, v in t.items()}
        print('%-6s %-28s read base %8d new %8d | written base %8d new %8d | median s base %.3f new %.3f ratio new/base %.2f' % (
            name, sname, res['base'][0], res['new'][0], res['base'][1], res['new'][1], med['base'], med['new'], med['new'] / med['base']), flush=True)
shutil.rmtree(D, ignore_errors=True)
