#!/usr/bin/env bash
# The whole test suite: system packages, then every crate's tests.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo test --workspace --locked
