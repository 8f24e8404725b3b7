#!/usr/bin/env bash
#===- scripts/build.sh - configure and build tile ------------------------===#
#
# Configures (once) and builds the project in $TILE_BUILD_DIR (default build/)
# with Ninja, clang-22 and lld when present (TILE_COMPILER=gcc: Debian's
# default compiler, GCC), ccache when present. Extra arguments are Ninja
# targets (default: all).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILE_BUILD_DIR:-$root/build}"

if [ ! -f "$build/build.ninja" ]; then
  args=(-G Ninja -S "$root" -B "$build"
        -DCMAKE_BUILD_TYPE="${TILE_BUILD_TYPE:-Release}"
        -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir)
  if [ "${TILE_COMPILER:-clang}" = gcc ]; then
    # GCC links with the system linker (it takes no -fuse-ld=lld-22).
    args+=(-DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++)
  elif command -v clang++-22 >/dev/null; then
    args+=(-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22)
    if command -v ld.lld-22 >/dev/null; then
      args+=(-DLLVM_USE_LINKER=lld-22)
    fi
  fi
  cmake "${args[@]}"
fi
cmake --build "$build" -- "$@"
