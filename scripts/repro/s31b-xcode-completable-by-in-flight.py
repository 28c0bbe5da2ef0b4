#!/usr/bin/env python3
# s31b (F2): on WCL xcode p=5 (binary, per byte offset), which calm elements' errors can be
# completed by in-flight positions of a write lying in at most 2 columns (the tolerance)? A
# version of a block row segment whose unknown positions are such a set passes its decode's
# known-position comparison with that stale element in it (`version_check_in_pieces` and
# `version_check` alike: with |erased| = m on an MDS code that comparison IS completability).
# usage: python3 scripts/repro/s31b-xcode-completable-by-in-flight.py
p = 5
data = [(r, c) for r in range(p - 2) for c in range(p)]  # data_pos order (checked in the test)
par = [(p - 2, i) for i in range(p)] + [(p - 1, i) for i in range(p)]
chain = {}
for i in range(p):  # docs of crates/codes/src/lib.rs: C(k, <i+k+2>) / C(k, <i-k-2>)
    chain[(p - 2, i)] = [(k, (i + k + 2) % p) for k in range(p - 2)]
    chain[(p - 1, i)] = [(k, (i - k - 2) % p) for k in range(p - 2)]
pos = data + par
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
def completable(U, in_flight):
    return [X for X in pos if X not in in_flight and span_has([syn(u) for u in U], syn(X))]
res = {}
for a in range(len(data)):
    for b in range(a, len(data)):
        w = set(data[a:b + 1])
        infl = w | {q for q in par if set(chain[q]) & w}
        for c1 in range(p):
            for c2 in range(c1, p):
                for X in completable([u for u in infl if u[1] in (c1, c2)], infl):
                    res.setdefault((a, b), set()).add((X, (c1, c2)))
print("whole-element writes a..b:", len(data) * (len(data) + 1) // 2,
      "with a calm element completable by in-flight positions in <= 2 columns:", len(res))
print("s30c/s31b write (elements 4..5):", sorted(res.get((4, 5), [])))
w45 = set(data[4:6]) | {q for q in par if set(chain[q]) & set(data[4:6])}
for name, S in [("block row 0, 0..1000", [(1, 0), (3, 2), (4, 3)]),
                ("block row 0, 3000..4096", [(0, 4), (3, 2), (4, 1)])]:
    print("s31b segment", name, "in flight", S, "-> completable calm elements:", completable(S, w45))
for k, v in sorted(res.items(), key=lambda kv: (kv[0][1] - kv[0][0], kv[0]))[:4]:
    print("e.g. write", k, "calm element, columns:", sorted(v)[:2])
