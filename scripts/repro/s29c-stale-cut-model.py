#!/usr/bin/env python3
"""s29c: a GF(2)^32 model of stale_beside_cut_write (recovery 2) after a WCL cut write
and a recovery killed in its running parity rewrite, with one stale column (a lost write)
beside them. One block row (element = one 4 KiB block). Searches for states where the
row is taken as Agrees (or Located wrongly) while a stale data element is acknowledged:
WRONG BYTES. Model of crates/store/src/store/recovery/stale_beside_cut.rs at 20c2fb7.

Usage: first write the codes' geometry to /tmp/s29c-geo/{xcode,hdp,dcode}.json (p=5; keys
rows, cols, data [[row, col]...], parity [[row, col]...], terms [[data index...]...], as
exaraid_codes::Geometry holds them), then `python3 s29c-stale-cut-model.py xcode col`.
Per contiguous cut write (data indices a..=b, every element acknowledged before), per
set of columns whose OSSs kept the write's blocks (a power cut), per recovery kill after
k running parity rewrites (parity index order, from the data as it stood, where the first
recovery did not record the row LOST), per lost write of one data element and per column
S that lost it: the second recovery's decision. Prints counts per decision path and the
WRONG cases ((path, k > 0, what the first recovery decided with the stale element
already there)). FIX = True models scripts/repro/s29c-stale-column-seen.patch. A model,
not the store: one bit-vector per 4 KiB block, no torn blocks, crcs always on record;
every WRONG case it names was rebuilt for real before being claimed
(crates/store/tests/crash_images/s29c_stale_beside_recovery_killed_in_parity_rewrite.rs)."""
import json, random, sys, itertools

def load(name):
    g = json.load(open(f"/tmp/s29c-geo/{name}.json"))
    rows, cols = g["rows"], g["cols"]
    data = [tuple(p) for p in g["data"]]
    par = [tuple(p) for p in g["parity"]]
    terms = g["terms"]
    return rows, cols, data, par, terms

class Code:
    def __init__(self, name):
        self.name = name
        self.rows, self.cols, self.data, self.par, self.terms = load(name)
        self.pos = self.data + self.par  # index: data 0..k-1, parity k..
        self.k = len(self.data)
        self.col = [p[1] for p in self.pos]
        self.chain = [None] * self.k + [set(t) for t in self.terms]
        self.m = 2
        self.n = self.cols
        # decode map for each set of n-2 columns: every position as xor of positions in them
        self.maps = {}
        for keep in itertools.combinations(range(self.n), self.n - 2):
            self.maps[keep] = self.solve(set(keep))

    def encode(self, dvals):
        out = list(dvals)
        for t in self.terms:
            v = 0
            for j in t:
                v ^= dvals[j]
            out.append(v)
        return out

    def solve(self, keep):
        # unknown data values: those data not in kept columns. Equations: each parity in a
        # kept column: xor of its terms = parity value (known). Express every position as
        # xor over known positions (indices into self.pos) by Gaussian elimination over GF(2).
        npos = len(self.pos)
        known = [i for i in range(npos) if self.col[i] in keep]
        unk = [j for j in range(self.k) if self.col[j] not in keep]
        # each equation: (mask over unknown data, mask over known positions)
        eqs = []
        for qi, t in enumerate(self.terms):
            p = self.k + qi
            if self.col[p] not in keep:
                continue
            um, km = 0, 1 << p
            for j in t:
                if self.col[j] in keep:
                    km ^= 1 << j
                else:
                    um ^= 1 << unk.index(j)
            eqs.append([um, km])
        # eliminate
        sol = {}
        rowsel = []
        for bi in range(len(unk)):
            piv = next((e for e in eqs if e not in rowsel and (e[0] >> bi) & 1), None)
            assert piv is not None, (self.name, keep, "not MDS?")
            rowsel.append(piv)
            for e in eqs:
                if e is not piv and (e[0] >> bi) & 1:
                    e[0] ^= piv[0]
                    e[1] ^= piv[1]
        for e in rowsel:
            assert bin(e[0]).count("1") == 1
            bi = e[0].bit_length() - 1
            sol[unk[bi]] = e[1]
        dmask = []
        for j in range(self.k):
            dmask.append(sol[j] if j in sol else (1 << j))
        # positions: data masks, parity = xor of term masks
        full = list(dmask)
        for t in self.terms:
            mm = 0
            for j in t:
                mm ^= dmask[j]
            full.append(mm)
        return full

    def codeword_from(self, vals, erased):
        """The codeword agreeing with `vals` on n-2 columns outside `erased` (the first ones)."""
        keep = tuple(c for c in range(self.n) if c not in erased)[: self.n - 2]
        mp = self.maps[keep]
        out = []
        for mm in mp:
            v = 0
            i = 0
            while mm:
                if mm & 1:
                    v ^= vals[i]
                mm >>= 1
                i += 1
            out.append(v)
        return out

# --- one version of the row --------------------------------------------------------------
class Ver:
    __slots__ = ("row", "known", "told", "live", "moving", "kie")
    def __init__(self, row, known, told, live, moving):
        self.row, self.known, self.told, self.live, self.moving = row, known, told, live, moving
        self.kie = False
    def copy(self):
        v = Ver(list(self.row), list(self.known), dict(self.told), self.live, self.moving)
        v.kie = self.kie
        return v

def erased_of(C, ver, extra):
    e = {C.col[i] for i in range(len(C.pos)) if not ver.known[i]}
    if extra is not None:
        e.add(extra)
    return e

def version_check(C, ver, extra):
    erased = erased_of(C, ver, extra)
    told = [i for i in ver.told if C.col[i] in erased]
    kie = ver.kie and any(ver.known[i] and C.col[i] in erased for i in range(len(C.pos)))
    if len(erased) > C.m or (len(erased) == C.m and not told and not kie):
        return None
    d = C.codeword_from(ver.row, erased)
    agrees = all(ver.row[i] == d[i] for i in range(len(C.pos)) if ver.known[i] and C.col[i] != extra)
    told_ok = all(d[i] == ver.told[i] for i in told)
    dead = all(d[i] == 0 for i in range(len(C.pos)) if C.col[i] in erased and not ver.live[i])
    return ("ok", d) if (agrees and told_ok and dead) else ("bad", None)

def version_decode(C, ver, extra):
    erased = erased_of(C, ver, extra)
    if len(erased) > C.m:
        return None
    return C.codeword_from(ver.row, erased), erased

def cross_version_check(C, vs, extra):
    for fr, to in ((0, 1), (1, 0)):
        r = version_decode(C, vs[fr], extra)
        if r is None:
            continue
        dec, erased = r
        carried = [c for c in erased if c not in vs[fr].moving]
        ex = extra if extra not in carried else None
        if not carried:
            continue
        ver = vs[to].copy()
        for i in range(len(C.pos)):
            if C.col[i] in carried:
                ver.row[i] = dec[i]
                ver.known[i] = True
        res = version_check(C, ver, ex)
        if res is not None:
            return res
    return None

def fits(C, vs, extra):
    checked = None
    for v in vs:
        r = version_check(C, v, extra)
        if r is None:
            continue
        if r[0] == "bad":
            return ("bad", None)
        checked = r
    if checked is None:
        return cross_version_check(C, vs, extra)
    return checked

# --- the scene -----------------------------------------------------------------------------
def versions(C, disk, acked, inflight, state, first, newvals):
    """v0/v1 as cut_row_versions builds them. disk: values as on disk (data masked by
    caller). state[i]: 'Old'/'New'/'Torn' for in-flight i. newvals: the write's new values
    (for told crcs). first[j]: first write at data j."""
    npos = len(C.pos)
    live0 = [False] * npos
    live1 = [False] * npos
    for i in range(npos):
        if i < C.k:
            live0[i] = i in acked
            live1[i] = live0[i] or i in inflight
        else:
            live0[i] = any(j in acked for j in C.chain[i])
            live1[i] = live0[i] or any(j in inflight for j in C.chain[i])
    # buf: data masked to acked, parity masked to live_before
    old_row = [disk[i] if live0[i] else 0 for i in range(npos)]
    moving = {C.col[i] for i in state}
    v0 = Ver(list(old_row), [True] * npos, {}, live0, moving)
    v1 = Ver(list(old_row), [True] * npos, {}, live1, moving)
    for i, st in state.items():
        if i < C.k:
            old = first[i]
            new = False
            if st == "New":
                v1.row[i] = disk[i]
                new = True
            elif st == "Old":
                old = True
            elif st == "Torn":
                if first[i]:
                    v0.told[i] = 0
                old = False
            if not new:
                v1.told[i] = newvals[i]
        else:
            old = new = False
            if st == "New":
                v1.row[i] = disk[i] if live1[i] else 0
                new = True
            elif st == "Old":
                old = True
            if not new:
                v1.told[i] = newvals[i]
        v0.known[i] = old
        v1.known[i] = new
    return [v0, v1]

def check_row(C, disk, acked, inflight, first, newvals, rule=True):
    """Returns ('Agrees', how) / ('Located', col, fixes) / ('Unlocated', how)."""
    npos = len(C.pos)
    # decided_by_a_recovery_before
    bufd = [disk[j] if j in acked else 0 for j in range(C.k)]
    enc = C.encode(bufd)
    if all(disk[p] == enc[p] for p in range(C.k, npos)):
        return ("Agrees", "decided_before")
    state = {}
    for i in sorted(inflight):
        state[i] = "New" if disk[i] == newvals[i] else "Old"
    vs = versions(C, disk, acked, inflight, state, first, newvals)
    f = fits(C, vs, None)
    if f is not None and f[0] == "ok":
        return ("Agrees", "fits")
    if f is None:
        return ("Agrees", "versions_told_unchecked")
    explaining = {}
    ambiguous = False
    for col in range(C.n):
        cells = [i for i in range(npos) if C.col[i] == col]
        calm = [i for i in cells if i not in inflight]
        data_in = any(i in inflight and i < C.k for i in cells)
        if not calm or data_in:
            continue
        r = fits(C, vs, col)
        if r is None or r[0] != "ok":
            continue
        d = r[1]
        if col in explaining:
            if any(explaining[col][i] != d[i] for i in calm):
                ambiguous = True
        else:
            explaining[col] = d
    none_explains = not explaining and not ambiguous
    if len(explaining) == 1 and not ambiguous:
        col, d = next(iter(explaining.items()))
        fixes = {i: d[i] for i in range(C.k) if C.col[i] == col and i not in inflight}
        return ("Located", col, fixes)
    if rule and none_explains and fits_rewritten(C, disk, acked, inflight, first, newvals, state):
        return ("Agrees", "rule")
    return ("Unlocated", "")

def fits_rewritten(C, disk, acked, inflight, first, newvals, state):
    npos = len(C.pos)
    bufd = [disk[j] if j in acked else 0 for j in range(C.k)]
    enc = C.encode(bufd)
    R = []
    for p in range(C.k, npos):
        if p not in state or state[p] == "New":
            continue
        if disk[p] != enc[p]:
            continue
        off_old = off_new = False
        for j in C.chain[p]:
            if j not in state:
                continue
            landed = state[j] == "New"
            over_acked = j in acked
            first_part = j not in acked
            off_old |= landed and over_acked
            off_new |= (not landed) or first_part
        if off_old and off_new:
            R.append(p)
    if not R:
        return False
    st2 = dict(state)
    for p in R:
        st2[p] = "Torn"
    vs = versions(C, disk, acked, inflight, st2, first, newvals)
    for v in vs:
        v.kie = True
    checked = []
    for at, v in enumerate(vs):
        r = version_check(C, v, None)
        if r is None:
            continue
        if r[0] == "bad":
            return False
        checked.append(at)
    by_cross = False
    if not checked:
        r = cross_version_check(C, vs, None)
        by_cross = r is not None and r[0] == "ok"
        if not by_cross:
            return False
    if not FIX:
        return True
    for col in range(C.n):
        seen = lambda at: stale_column_seen(C, vs[at], set(state), col)
        ok = all(seen(a) for a in (0, 1)) if by_cross else any(seen(a) for a in checked)
        if not ok:
            return False
    return True

FIX = False
TOLD_KNOWN = True

def rank2(C, positions):
    rows = []
    for qi, t in enumerate(C.terms):
        p = C.k + qi
        m = 0
        for b, x in enumerate(positions):
            if x == p or (x < C.k and x in C.chain[p]):
                m |= 1 << b
        rows.append(m)
    r = 0
    basis = []
    for m in rows:
        for bv in basis:
            m = min(m, m ^ bv)
        if m:
            basis.append(m)
    return len(basis)

def stale_column_seen(C, ver, inflight, col):
    unknown = [i for i in range(len(C.pos)) if not ver.known[i] and not (TOLD_KNOWN and i in ver.told)]
    sus = [i for i in range(len(C.pos)) if ver.known[i] and C.col[i] == col and i not in inflight]
    if not sus:
        return True
    return rank2(C, unknown + sus) == rank2(C, unknown) + len(sus)

def search(name, seed=1, masks_mode="col", max_len=None, first_mode=False):
    C = Code(name)
    rnd = random.Random(seed)
    npos = len(C.pos)
    found = {}
    stats = {}
    def rv():
        return rnd.getrandbits(32) | 1
    for a in range(C.k):
        for b in range(a, C.k):
            if max_len and b - a + 1 > max_len:
                continue
            wr = set(range(a, b + 1))
            wpar = {C.k + q for q in range(len(C.terms)) if C.chain[C.k + q] & wr}
            inflight = wr | wpar
            firsts = [set()]
            if first_mode:
                firsts = [set(), {a}, {b}]
            for fset in firsts:
                acked = set(range(C.k)) - fset
                first = {j: (j in fset) for j in range(C.k)}
                old = [rv() for _ in range(C.k)]
                oldd = [old[j] if j in acked else 0 for j in range(C.k)]
                oldc = C.encode(oldd)
                # disk old: data (non-acked data hold stale chunk bytes: take random)
                disk0 = list(oldc)
                for j in fset:
                    disk0[j] = rv()
                newd = list(oldd)
                for j in wr:
                    newd[j] = rv()
                newc = C.encode(newd)
                if masks_mode == "col":
                    masks = []
                    for cm in range(1 << C.n):
                        masks.append({i for i in inflight if (cm >> C.col[i]) & 1})
                else:
                    lst = sorted(inflight)
                    if len(lst) > 12:
                        continue
                    masks = [{lst[t] for t in range(len(lst)) if (mm >> t) & 1} for mm in range(1 << len(lst))]
                for landed in masks:
                    disk1 = list(disk0)
                    for i in landed:
                        disk1[i] = newc[i]
                    # recovery 1 (no stale)
                    r1 = check_row(C, disk1, acked, inflight, first, newc)
                    key1 = r1[0]
                    stats[key1] = stats.get(key1, 0) + 1
                    if r1[0] == "Unlocated":
                        continue
                    if r1[0] == "Located":
                        stats["rec1-located(no stale!)"] = stats.get("rec1-located(no stale!)", 0) + 1
                        continue
                    # recovery 1 rewrites parity in index order from the decided data
                    dec = [disk1[j] if j in acked else 0 for j in range(C.k)]
                    encd = C.encode(dec)
                    order = [p for p in range(C.k, npos)]  # every block live or cut-wrote
                    for kk in range(0, len(order) + 1):
                        disk2 = list(disk1)
                        rewritten = set(order[:kk])
                        for p in rewritten:
                            disk2[p] = encd[p]
                        # one stale column: a lost write of data j (older value), S = col
                        for j in sorted(acked):
                            delta = [0] * C.k
                            delta[j] = rv()
                            D = C.encode(delta)
                            for S in range(C.n):
                                disk3 = list(disk2)
                                hit_data = False
                                any_hit = False
                                for i in range(npos):
                                    if C.col[i] != S or D[i] == 0:
                                        continue
                                    if i in inflight or i in rewritten:
                                        continue
                                    disk3[i] ^= D[i]
                                    any_hit = True
                                    if i < C.k and i in acked:
                                        hit_data = True
                                if not any_hit:
                                    continue
                                r2 = check_row(C, disk3, acked, inflight, first, newc)
                                wrong = None
                                if r2[0] == "Agrees" and hit_data:
                                    wrong = r2[1]
                                if r2[0] == "Located":
                                    # the fix must be each data's true value (as decided)
                                    for i, v in r2[2].items():
                                        if i in acked and v != disk2[i]:
                                            wrong = "located-wrong"
                                if r2[0] == "Agrees" and not hit_data:
                                    # parity-only stale blessed: data right (parity resealed)
                                    pass
                                tag = (r2[0], r2[1] if r2[0] != "Located" else "")
                                stats[("rec2",) + tag] = stats.get(("rec2",) + tag, 0) + 1
                                if wrong:
                                    d1s = list(disk1)
                                    for i in range(npos):
                                        if C.col[i] == S and D[i] and i not in inflight:
                                            d1s[i] ^= D[i]
                                    r1s = check_row(C, d1s, acked, inflight, first, newc)
                                    keyw = (wrong, kk > 0, "rec1-with-stale:" + r1s[0])
                                    found.setdefault(keyw, []).append(
                                        dict(range=(a, b), first=sorted(fset), landed=sorted(landed),
                                             k=kk, stale_data=j, S=S, rec1=r1[:2]))
    return C, found, stats

if __name__ == "__main__":
    name = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "col"
    first_mode = len(sys.argv) > 3 and sys.argv[3] == "first"
    C, found, stats = search(name, masks_mode=mode, first_mode=first_mode,
                             max_len=(4 if mode != "col" else None))
    print(name, mode, "first" if first_mode else "")
    for k, v in sorted(stats.items(), key=str):
        print("  stat", k, v)
    for k, v in found.items():
        print("  WRONG", k, len(v))
        for x in v[:4]:
            print("     ", x)

# --- s29c: a finer check for rows no version checks (per-equation, known positions only) ---
def consistent(C, ver):
    """Can the unknown positions of `ver` be filled so that every parity equation holds?"""
    npos = len(C.pos)
    unknown = [i for i in range(npos) if not ver.known[i]]
    rows = []
    for qi, t in enumerate(C.terms):
        p = C.k + qi
        members = [p] + list(t)
        m = 0
        s = 0
        for x in members:
            if ver.known[x]:
                s ^= ver.row[x]
            else:
                m |= 1 << unknown.index(x)
        rows.append([m, s])
    for b in range(len(unknown)):
        piv = next((r for r in rows if (r[0] >> b) & 1), None)
        if piv is None:
            continue
        for r in rows:
            if r is not piv and (r[0] >> b) & 1:
                r[0] ^= piv[0]
                r[1] ^= piv[1]
        rows.remove(piv)
    return all(r[1] == 0 for r in rows if r[0] == 0)

def finer_check(C, vs, inflight):
    """'proven' (both versions consistent, every column's stale error seen by one),
    'bad' (a version inconsistent), 'unproven' (consistent, some column unseen)."""
    if not all(consistent(C, v) for v in vs):
        return "bad"
    for col in range(C.n):
        if not any(stale_column_seen(C, v, inflight, col) for v in vs):
            return "unproven"
    return "proven"
