#!/usr/bin/env bash
# Build exaraid and run its main job on small defaults. Everything lands in out/ (CSV, JSON,
# PNG/SVG figures); the full-scale runs are in docs/results/ with their commands.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
cargo build --release --locked -p exaraid-cli
bin="${CARGO_TARGET_DIR:-target}/release/exaraid"
out=out
rm -rf "$out"
mkdir -p "$out"

step() { printf '\n== %s\n' "$*"; }

step "codes: exhaustive decode check of every code (exaraid codes verify --all)"
"$bin" codes verify --all

step "codes: D-Code paper I/O-load evaluation (Figures 4 and 5) -> $out/codes-loads/"
"$bin" codes loads --out "$out/codes-loads"

step "sim: Figure 3 of the WCL / Delayed Parity paper at reduced scale -> $out/sim/"
"$bin" sim reproduce --quick --out "$out/sim"

step "archive: Blue Waters tape tier, Figures 5-11 at reduced scale -> $out/archive/"
"$bin" archive reproduce --quick --out "$out/archive"

step "store: a RAID-6 store over 6 OSS directories survives two failed OSSs -> $out/store/"
store="$out/store"
"$bin" store init "$store" --oss 6 --code raid6 --stripe-unit 65536 --write-path wcl
head -c 1000000 /dev/urandom > "$out/sample.bin"
"$bin" store put "$store" sample < "$out/sample.bin"
"$bin" store fail "$store" --oss 1
"$bin" store fail "$store" --oss 4
"$bin" store get "$store" sample | cmp - "$out/sample.bin" && echo "degraded read with OSS 1 and 4 failed: identical"
"$bin" store rebuild "$store" --oss 1
"$bin" store rebuild "$store" --oss 4
"$bin" store scrub "$store"
"$bin" store status "$store"

step "store: write paths side by side on an emulated HDD -> $out/store-bench.json"
"$bin" store bench --quick --emulate hdd --out "$out/store-bench.json"

printf '\nDone. Results are in %s/.\n' "$out"
