# Shared helpers of the review sweep drivers (scripts/repro/s2*r-*.py), imported rather than pasted again.
# code_args(spec): a code spec as the sweeps write it -> (OSS count, `store init` arguments after --code NAME).
#   raid5:N / raid6:N (N OSSs), rs:K:M (K+M OSSs), ARRAY:P:N (an array code with prime P over N OSSs,
#   e.g. hcode:5:6, rdp:5:6, evenodd:5:7, xcode:5:5, dcode:5:5, hdp:5:4).
# example: n, extra = code_args('hcode:5:6')  ->  (6, ['--p', '5'])
# tolerance(spec), run_store(args, inp, env) and wrong_bytes(got, old, writes): s27r-crash-pages.py.


def code_args(spec):
    c = spec.split(':')
    if c[0] == 'rs':
        return int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
    if c[0] in ('raid5', 'raid6'):
        return int(c[1]), []
    assert len(c) == 3, 'an array code spec is NAME:P:N: %r' % spec
    return int(c[2]), ['--p', c[1]]


def tolerance(spec):
    """OSS failures the code of `spec` survives: 1 on raid5, m on rs:K:M, 2 otherwise (raid6, array codes)."""
    c = spec.split(':')
    if c[0] == 'raid5':
        return 1
    if c[0] == 'rs':
        return int(c[2])
    return 2


def run_store(args, inp=b'', env=None, timeout_s=120):
    """`$EXARAID store ARGS` with stdin `inp` and extra environment `env`; prints a PROBLEM line on a hang or panic."""
    import os, subprocess
    e = dict(os.environ)
    e.update(env or {})
    p = subprocess.run(['timeout', str(timeout_s), os.environ['EXARAID'], 'store'] + args, input=inp, env=e,
                       capture_output=True)
    if p.returncode == 124 or b'panicked' in p.stderr:
        print('PROBLEM hang/panic', args, p.stderr[-600:], flush=True)
    return p


def wrong_bytes(got, old, ws):
    """Offsets of `got` holding a byte no write put there: `old` (the put), then writes (offset, bytes, acked)
    in order (an acknowledged one replaces the byte, an unacknowledged one may or may not have landed)."""
    bad = []
    for x in range(len(got)):
        vals = {old[x] if x < len(old) else 0}
        for o, d, ack in ws:
            if o <= x < o + len(d):
                if ack: vals = {d[x - o]}
                else: vals.add(d[x - o])
        if got[x] not in vals: bad.append(x)
    return bad
