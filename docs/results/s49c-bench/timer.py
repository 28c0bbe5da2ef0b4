import json, glob, statistics
rows = {}
for f in sorted(glob.glob("/tmp/s49c-meas/timer/head2-*.json")):
    try: run = json.load(open(f))["runs"][0]
    except Exception as e: print("skip", f, e); continue
    for r in run["results"]:
        t = r["time"]
        k = (r["code"], r["path"])
        rows.setdefault(k, []).append((t["home_witness_check_s"], t["execute_s"], r["write_phase_s"] * run["threads"],
            t["home_witness_checked_steps"], t["home_witness_checked_pieces"], t["home_witness_piece_reads"], r["throughput_mib_s"]))
for k, v in rows.items():
    if k[1] not in ("rmw", "delayed", "wcl"): continue
    chk = [x[0] for x in v]; fe = [x[0] / x[1] for x in v]; fw = [x[0] / x[2] for x in v]
    us = [x[0] / x[3] * 1e6 if x[3] else 0 for x in v]
    print(f"{k[0]:14} {k[1]:8} runs {len(v)} check thread-s median {statistics.median(chk):.4f} ({min(chk):.4f}..{max(chk):.4f});"
          f" of execute_s: median {100*statistics.median(fe):.2f} % ({100*min(fe):.2f}..{100*max(fe):.2f});"
          f" of threads x write phase: median {100*statistics.median(fw):.2f} % ({100*min(fw):.2f}..{100*max(fw):.2f});"
          f" per checked step {statistics.median(us):.1f} us; steps/pieces/rereads {v[0][3]}/{v[0][4]}/{v[0][5]}; MiB/s median {statistics.median([x[6] for x in v]):.1f}")
