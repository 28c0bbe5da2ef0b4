#!/usr/bin/env bash
# Installs the system packages exaraid needs, from Debian's archive, if they are missing:
#   libisal-dev        ISA-L, the baseline (and a kernel) for the erasure-code benchmarks
#   fonts-dejavu-core  the font the figures are drawn with
#   pkg-config         locates libisal for the build
#   gcc, libc6-dev     the linker Rust calls, and the C compiler a store test builds
#                      scripts/eioshim.c with (a real fsync EIO)
set -euo pipefail
packages=(libisal-dev fonts-dejavu-core pkg-config gcc libc6-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing system packages: ${missing[*]}" >&2
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo"
else
  echo "setup: need root (or sudo) to install ${missing[*]} with apt-get; install them and run again" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
