#!/usr/bin/env bash
# The whole test suite: system packages, then every crate's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# A fresh build gains nothing from incremental state, and it cost 5 GB of disk.
export CARGO_INCREMENTAL=0
cargo test --workspace --locked
