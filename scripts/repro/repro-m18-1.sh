#!/usr/bin/env bash
# Merge review s18m M18-1: a write whose own inline destage recorded its cache stripe LOST,
# held after its plans ran while a later write rewrites those bytes whole, panics at its end
# ("a destage of this write's plans noted its losses on the write in flight"): s18e's
# forget_rewritten emptied its notes, the end's assert still expects the loss there.
# Expected (a fix): the held write returns Ok, the later write's bytes read back.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test -p exaraid-store --test review_m18_rewritten_over_own_destage_loss -- --ignored
