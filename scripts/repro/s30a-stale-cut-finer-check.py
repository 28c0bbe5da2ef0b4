#!/usr/bin/env python3
# usage: KMAX=0 python3 s30a-stale-cut-finer-check.py evenodd   (geometry in /tmp/s29c-geo: s30a writes it with `exaraid codes show --json`, see docs/results/s30-s30a-finer-check.md)
# s30a: s29c-stale-cut-finer-check.py with KMAX (most running parity rewrites of a killed recovery
# modelled; 0: one crash alone) for the codes s29c
# did not model (rdp, hcode, evenodd; raid6 and rs need no model, see docs/store.md).
# s31d: the check itself is s29c's script (KMAX read there, one copy of the model's check);
# this name stays for the commands docs/results/s30-s30a-finer-check.md gives.
import os, runpy
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "s29c-stale-cut-finer-check.py"), run_name="__main__")
