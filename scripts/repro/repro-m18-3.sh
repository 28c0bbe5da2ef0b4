#!/usr/bin/env bash
# Merge review s18m M18-3: s18d's collapse past WRITE_IN_FLIGHT_LOST_RANGES_MAX names the whole
# write, bringing back to the notes a range a later write rewrote (s18e forget_rewritten took it
# off): the end then journals the later write's acknowledged bytes LOST (M17-1 past the bound).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test -p exaraid-store --lib a_range_a_later_write_rewrote_never_returns_to_the_notes_by_a_collapse -- --ignored
