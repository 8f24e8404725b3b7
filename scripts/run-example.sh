#!/usr/bin/env bash
#===- scripts/run-example.sh - install, build and run the example GEMM ---===#
#
# On a fresh Debian 12 machine: installs the dependencies, builds tile, and
# runs the main job on examples/gemm.mlir.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILE_BUILD_DIR:-$root/build}"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" tile-opt
"$build/bin/tile-opt" "$root/examples/gemm.mlir"
