# Shared helpers of the review sweep drivers (scripts/repro/s2*r-*.py), imported rather than pasted again.
# code_args(spec): a code spec as the sweeps write it -> (OSS count, `store init` arguments after --code NAME).
#   raid5:N / raid6:N (N OSSs), rs:K:M (K+M OSSs), ARRAY:P:N (an array code with prime P over N OSSs,
#   e.g. hcode:5:6, rdp:5:6, evenodd:5:7, xcode:5:5, dcode:5:5, hdp:5:4).
# example: n, extra = code_args('hcode:5:6')  ->  (6, ['--p', '5'])


def code_args(spec):
    c = spec.split(':')
    if c[0] == 'rs':
        return int(c[1]) + int(c[2]), ['--k', c[1], '--m', c[2]]
    if c[0] in ('raid5', 'raid6'):
        return int(c[1]), []
    assert len(c) == 3, 'an array code spec is NAME:P:N: %r' % spec
    return int(c[2]), ['--p', c[1]]
