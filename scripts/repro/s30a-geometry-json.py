#!/usr/bin/env python3
# s30a: writes /tmp/s29c-geo/NAME.json (the geometry s29c-stale-cut-model.py reads) for the XOR
# array codes at p=5, from `exaraid codes show --json`. usage: python3 s30a-geometry-json.py EXARAID_BIN
import json, subprocess, sys
B = sys.argv[1]
for name, p in [("xcode",5),("dcode",5),("hdp",5),("hcode",5),("rdp",5),("evenodd",5)]:
    g = json.loads(subprocess.run([B,"codes","show","--code",name,"--p",str(p),"--json"],capture_output=True,check=True).stdout)
    assert all(t["coef"] == 1 for ts in g["parity_terms"] for t in ts), name
    out = dict(rows=g["rows"], cols=g["cols"], data=[[q["row"],q["col"]] for q in g["data_pos"]],
               parity=[[q["row"],q["col"]] for q in g["parity_pos"]], terms=[[t["data"] for t in ts] for ts in g["parity_terms"]])
    json.dump(out, open(f"/tmp/s29c-geo/{name}.json","w"))
    print(name, g["rows"], g["cols"], len(out["data"]), len(out["parity"]), g["fault_tolerance"])
