#!/bin/bash
# R15b-2 (review s15r2): R15-1's fix has a crash window. A settle (here `flush`) after a delayed window's
# timeout fired journals PlannerReset, then the window's StartDelayed (not synced), generation records,
# then its EndDelayed (synced). kill -9 anywhere from after the PlannerReset to before the EndDelayed
# (7 of the flush's ~52 durable calls on this scene, 23..29 here) and the next open starts the dead job's
# window again as a fresh one: a later write to its file is unprotected again ("bytes unprotected: 3000";
# 0 at every other kill point and without a kill), for up to a new timeout (default 10 minutes).
# Usage: EXARAID=... SHIM=/tmp/s15r2-killshim.so repro-r15b-2.sh SCRATCH [FIRST] [LAST]
#   (SHIM: gcc -O2 -shared -fPIC -o /tmp/s15r2-killshim.so scripts/killshim.c -ldl)
set -u
MINN=${2:-20} exec "$(dirname "$0")/s15r2-flush-kill-window.sh" "$1" "${3:-32}"
