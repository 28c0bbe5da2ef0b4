import json, glob, sys, statistics, re
mode = sys.argv[1]
d = f"/tmp/s49c-meas/{mode}"
def tp(f):
    r = json.load(open(f))["runs"][0]["results"]
    return {(x["code"], x["path"]): x for x in r}
pairs = {}
for f in glob.glob(f"{d}/head-*.json"):
    i = int(re.search(r"head-(\d+)", f).group(1))
    g = f"{d}/ablated-{i}.json"
    try:
        pairs[i] = (tp(f), tp(g))
    except Exception as e:
        print("skip", i, e)
print(f"mode {mode}: {len(pairs)} pairs")
for code in ["raid5 k=4 m=1", "raid6 k=4 m=2"]:
    for path in ["rmw", "delayed", "wcl", "raid0"]:
        k = (code, path)
        ratios = []; hs = []; abl = []; checks = []
        for i in sorted(pairs):
            h, a = pairs[i]
            hs.append(h[k]["throughput_mib_s"]); abl.append(a[k]["throughput_mib_s"])
            ratios.append(h[k]["throughput_mib_s"] / a[k]["throughput_mib_s"])
            checks.append((h[k]["time"]["home_witness_checked_steps"], a[k]["time"]["home_witness_checked_steps"]))
        if not ratios: continue
        s = sorted(ratios)
        print(f"{code:14} {path:8} head/ablated throughput: min {s[0]:.3f} median {statistics.median(s):.3f} max {s[-1]:.3f}"
              f" | head MiB/s median {statistics.median(hs):.1f} ({min(hs):.1f}..{max(hs):.1f})"
              f" ablated {statistics.median(abl):.1f} ({min(abl):.1f}..{max(abl):.1f})"
              f" | checked steps head/ablated {checks[0]}")
        print("   per pair:", " ".join(f"{r:.3f}" for r in ratios))
