# s32a: the xcode p=5 model both s32a scripts share (element positions, parity chains, the
# syndrome of a position as a bitmask over the parities, GF(2) span test, merged byte runs).
p, m, B = 5, 2, 4096
data = [(r, c) for r in range(p - 2) for c in range(p)]
par = [(p - 2, i) for i in range(p)] + [(p - 1, i) for i in range(p)]
chain = {}
for i in range(p):
    chain[(p - 2, i)] = [(k, (i + k + 2) % p) for k in range(p - 2)]
    chain[(p - 1, i)] = [(k, (i - k - 2) % p) for k in range(p - 2)]
def syn(x):
    return sum(1 << j for j, q in enumerate(par) if x == q or x in chain[q])
def span_has(vecs, t):
    basis = []
    for v in vecs:
        for b in basis:
            v = min(v, v ^ b)
        if v:
            basis.append(v)
    for b in basis:
        t = min(t, t ^ b)
    return t == 0
def runs(rs):
    out = []
    for a, z in sorted(rs):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], z))
        else:
            out.append((a, z))
    return out
