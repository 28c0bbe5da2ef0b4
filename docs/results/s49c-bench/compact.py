import json, glob, re, os
out = {}
def load_lines(path):
    d = {}
    if not os.path.exists(path): return d
    for l in open(path):
        p = l.split()
        if len(p) >= 4 and not l.startswith("FAIL"):
            if ":" in p[1]:
                p = [p[0], "head2"] + p[1:]
            d[(p[0], p[1])] = {"utc": p[2], "loadavg_1_5_15": [float(x) for x in p[3:6]]}
    return d
for mode in ["nofsync", "fsync", "timer", "timer-fresh"]:
    d = f"/tmp/s49c-meas/{mode}"
    loads = load_lines(f"{d}/load.txt")
    runs = []
    for f in sorted(glob.glob(f"{d}/*.json")):
        m = re.search(r"/([a-z0-9]+)-(\d+)\.json$", f)
        b, i = m.group(1), m.group(2)
        try: rep = json.load(open(f))["runs"][0]
        except Exception: continue
        ld = loads.get((i, b)) or loads.get((i, b if mode.startswith("timer") else b)) or {}
        runs.append({
            "binary": b, "pair": int(i), **ld, "workload": rep["workload"], "fsync": rep["fsync"],
            "threads": rep["threads"], "writes_per_thread": rep["writes_per_thread"],
            "paths": [{
                "code": r["code"], "path": r["path"], "bytes": r["bytes"],
                "throughput_mib_s": r["throughput_mib_s"], "write_phase_s": r["write_phase_s"],
                "total_s": r["total_s"], "ops_match_planner": r["ops_match_planner"],
                "execute_s": r["time"]["execute_s"], "core_lock_wait_s": r["time"]["core_lock_wait_s"],
                "home_witness_checked_steps": r["time"].get("home_witness_checked_steps"),
                "home_witness_checked_pieces": r["time"].get("home_witness_checked_pieces"),
                "home_witness_piece_reads": r["time"].get("home_witness_piece_reads"),
                "home_witness_check_s": r["time"].get("home_witness_check_s"),
            } for r in rep["results"]],
        })
    out[mode] = runs
os.makedirs("/work/wt-s49c/docs/results/s49c-bench", exist_ok=True)
json.dump(out, open("/work/wt-s49c/docs/results/s49c-bench/runs.json", "w"), indent=1)
print({k: len(v) for k, v in out.items()})
