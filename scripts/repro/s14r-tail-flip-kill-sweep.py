#!/usr/bin/env python3
"""Review s14r's copy of the tail-flip sweep, folded into tail-flip-kill-sweep.py (session 15):
the same arguments and environment (its CMDs, CODE with parameters, FLIPAT); only its scratch
directory default, /tmp/s14r-tf, is kept here."""
import os, runpy, sys
os.environ.setdefault("REPRO_DIR", "/tmp/s14r-tf")
sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tail-flip-kill-sweep.py")
runpy.run_path(sys.argv[0], run_name="__main__")
