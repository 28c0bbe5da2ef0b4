#!/usr/bin/env python3
"""Summarise scripts/bench-s17g-ab.sh output: per mode and path, new/old ratios paired by set
(throughput of the write phase; total time incl. background destage/moves), min/median/max;
the goal ratios per binary; journal fsyncs per path (median per binary).
Usage: bench-s17g-summary.py OUTDIR MODE [MODE ...]"""
import glob, json, statistics, sys

def spread(v):
    v = sorted(v)
    return f"{v[0]:.2f} / {statistics.median(v):.2f} / {v[-1]:.2f}"

out = sys.argv[1]
for mode in sys.argv[2:]:
    runs = {}
    for f in glob.glob(f"{out}/{mode}-*-*.json"):
        b, s = f.rsplit("/", 1)[1][len(mode) + 1:-5].split("-")
        runs[(b, int(s))] = json.load(open(f))["runs"][0]
    sets = sorted({s for (_, s) in runs if ("old", s) in runs and ("new", s) in runs})
    print(f"\n## {mode}: {len(sets)} paired sets")
    print("| code | path | write phase s, old (min / med / max) | new | throughput new/old (paired) | total s new/old (old_total/new_total) | background s (total - write phase) old | new | journal fsyncs old / new (median) |")
    print("|---|---|---|---|---|---|---|---|---|")
    def rows(r):
        out = {}
        for x in r["results"]:
            out[(x["code"], x["path"])] = x
        for x in r["streaming"]:
            out[(x["code"], "full-stripe streaming")] = x
        for x in r["raw"]:
            out[(x["code"], f"raw {x['write_bytes'] >> 10} KiB")] = {
                "write_phase_s": x["seconds"], "total_s": x["seconds"], "time": None}
        return out
    keys = list(rows(runs[("old", sets[0])]).keys())
    for k in keys:
        o = [rows(runs[("old", s)])[k] for s in sets]
        n = [rows(runs[("new", s)])[k] for s in sets]
        tp = [a["write_phase_s"] / b["write_phase_s"] for a, b in zip(o, n)]
        tt = [a["total_s"] / b["total_s"] for a, b in zip(o, n)]
        bo = spread([x["total_s"] - x["write_phase_s"] for x in o])
        bn = spread([x["total_s"] - x["write_phase_s"] for x in n])
        if o[0]["time"] is not None:
            jf = f"{statistics.median([x['time']['journal_fsyncs'] for x in o]):.0f} / {statistics.median([x['time']['journal_fsyncs'] for x in n]):.0f}"
        else:
            jf = ""
        print(f"| {k[0]} | {k[1]} | {spread([x['write_phase_s'] for x in o])} | {spread([x['write_phase_s'] for x in n])} | {spread(tp)} | {spread(tt)} | {bo} | {bn} | {jf} |")
    print("\n| code | goal ratio | goal | old (min / med / max) | new | met old / new |")
    print("|---|---|---:|---|---|---|")
    for i, r0 in enumerate(runs[("old", sets[0])]["ratios"]):
        o = [runs[("old", s)]["ratios"][i]["value"] for s in sets]
        n = [runs[("new", s)]["ratios"][i]["value"] for s in sets]
        g = r0["goal"]
        mo = sum(v >= g for v in o); mn = sum(v >= g for v in n)
        print(f"| {r0['code']} | {r0['what']} | {g} | {spread(o)} | {spread(n)} | {mo}/{len(o)} / {mn}/{len(n)} |")
