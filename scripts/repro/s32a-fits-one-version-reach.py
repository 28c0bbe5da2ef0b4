#!/usr/bin/env python3
# s32a: which of the worlds of s32a-fits-one-version-model.py does a crash reach, where each
# OSS (column) writes its steps in one order (d: its data blocks, 3: its diagonal parity
# (3,c), 4: its anti-diagonal (4,c); a parity's pieces in offset order) and a crash leaves
# each OSS a prefix of its steps (threads per OSS; a power cut of `for_each_power_cut`
# keeps each OSS's unsynced writes all or none, a prefix too). Every order is tried.
# Result: only order "d43" (anti-diagonal before diagonal) reaches any (31 worlds, write
# 5..14); the plan writes the diagonal row first (plan::wcl, parity steps by parity_pos).
# usage: python3 scripts/repro/s32a-fits-one-version-reach.py   (about a minute)
import itertools, sys
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s32a_xcode_model import p, m, B, data, par, chain, syn, span_has, runs  # noqa: E402
X = (0, 1)
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
        for order in itertools.permutations("d34"):
          cols_steps = []
          for c in range(p):
                steps = []
                for k in order:
                    if k == "d":
                        steps += [(d, None) for d in rng if d in data and d[1] == c]
                    else:
                        q = (p - 2 if k == "3" else p - 1, c)
                        if q in rng:
                            steps += [(q, i) for i in range(len(rng[q]))]
                cols_steps.append(steps)
          for cut in itertools.product(*[range(len(st) + 1) for st in cols_steps]):
            S = {}
            for c in range(p):
                steps = cols_steps[c]
                done = steps[:cut[c]]
                for pp, _ in steps:
                    n = sum(1 for x, _ in done if x == pp)
                    tot = sum(1 for x, _ in steps if x == pp)
                    S[pp] = "Old" if n == 0 else "New" if n == tot else "P%d" % (n - 1)
            if len(S) != len(rng):
                continue
            if not any(t in ("P0", "P1") for t in S.values()):
                continue
            if True:
              pass
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
                    found.append((a, b, (x, y), "".join(order), {q: S[q] for q in rng if S[q] != "Old"}, u))
print( "- worlds where the old version alone passes a stale (0,1):", len(found))
for f in found:
    print("write", f[0], "..", f[1], "segment", f[2], "per-OSS order", f[3], "(d data, 3 diagonal, 4 anti-diagonal) not Old:", f[4], "completing:", f[5])
