#!/usr/bin/env bash
# Build exaraid and run its main job on small defaults. Results land in out/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo build --release --locked
bin=target/release/exaraid
mkdir -p out
echo "== exaraid codes verify --all"
"$bin" codes verify --all
