#!/usr/bin/env python3
# s32a (item (1) of "OPEN after session 31"): on WCL xcode p=5 at 16 KiB elements, which
# writes from data element a's byte 3000 to element b's byte 1000 (block row 0; a running
# parity block on both ends' chains takes two pieces there, `Partial` where a cut lands one)
# leave a world where `fits` takes the OLD version checked while the NEW one is `None`, and
# the stale data element 1 (cell (0,1)) is completable in one segment by the old version's
# unknown positions? The old version of a first write knows the write's data (zeros) and
# leaves its landed parity blocks (and a Partial block's landed piece) unknown, untold; a
# segment with fewer than 2 erased columns makes it checked; a NEW version segment with
# more than 2 erased columns makes it `None`. Data blocks are taken all landed ("New") or,
# with --data-old, none landed; parity blocks each Old or New.
# usage: python3 scripts/repro/s32a-fits-one-version-model.py [--data-old]
import itertools, sys
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s32a_xcode_model import p, m, B, data, par, chain, syn, span_has, runs  # noqa: E402
X, data_state = (0, 1), ("Old" if "--data-old" in sys.argv else "New")
found = []
for a in range(2, 15):
    for b in range(a + 1, 15):
        s, e = 3000, 1000
        rng = {data[d]: [(3000 if d == a else 0, 1000 if d == b else B)] for d in range(a, b + 1)}
        for q in par:
            r = runs([x for dd in chain[q] if dd in rng for x in rng[dd]])
            if r:
                rng[q] = r
        partials = [q for q in par if q in rng and len(rng[q]) == 2]
        if not partials:
            continue
        ends = sorted({0, B} | {x for v in rng.values() for t in v for x in t})
        segs = list(zip(ends, ends[1:]))
        pars = [q for q in par if q in rng]
        inr = lambda pp, x: any(a0 <= x < z0 for a0, z0 in rng.get(pp, []))
        for st in itertools.product(*[["Old", "New"] + (["P0", "P1"] if q in partials else []) for q in pars]):
            S = dict(zip(pars, st))
            S.update({d: data_state for d in rng if d in data})
            if not any(t in ("P0", "P1") for t in S.values()):
                continue
            def unk(ver, x):
                u = []
                for pp in (q for q in rng if inr(q, x)):
                    t = S[pp]
                    if pp in data:
                        u += [pp] if ver == 1 and t == "Old" else []
                    elif t in ("P0", "P1"):
                        landed = rng[pp][int(t[1])]
                        on = landed[0] <= x < landed[1]
                        u += [pp] if (ver == 0) == on else []
                    elif (ver, t) in ((0, "New"), (1, "Old")):
                        u.append(pp)
                return u
            cols = lambda u: {pp[1] for pp in u}
            v0 = [cols(unk(0, x)) for x, _ in segs]
            v1 = [cols(unk(1, x)) for x, _ in segs]
            if any(len(c) > m for c in v0) or not any(len(c) < m for c in v0):
                continue
            if not any(len(c) > m for c in v1):
                continue
            for x, y in segs:
                u = unk(0, x)
                if span_has([syn(q) for q in u], syn(X)):
                    found.append((a, b, (x, y), {q: S[q] for q in pars if S[q] != "Old"}, u))
print("data", data_state, "- worlds where the old version alone passes a stale (0,1):", len(found))
for f in found:
    print("write", f[0], "..", f[1], "segment", f[2], "parity not Old:", f[3], "completing:", f[4])
