#!/usr/bin/env bash
#===- scripts/run-example.sh - install, build and run the example GEMM ---===#
#
# On a fresh Debian 12 machine: installs the dependencies, builds tile, and
# runs examples/gemm.mlir with tile-run on random inputs, checking the result
# against numpy. Runs on the GPU when one is found, else on the CPU.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILE_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" tile-run

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$root/test/Execution/reference.py" gemm "$work" 1024 256 512
"$build/bin/tile-run" "$root/examples/gemm.mlir" \
  --arg "@$work/a.npy" --arg "@$work/b.npy" --arg f32:1024x256=zeros \
  --check "2=$work/ref.npy" --bench=10 --flops=268435456 --timing
