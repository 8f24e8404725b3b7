#!/usr/bin/env bash
#===- scripts/device-bundle.sh - build what the GPU machine runs ---------===#
#
# The GPU machine has no LLVM or MLIR: this builds tile-run statically linked
# (in build-static/), strips and compresses it, and adds lit, into .bundle/
# (git-ignored) for the device tool to carry:
#
#   .bundle/tile-run.xz   tile-run (needs only libc, libm, libz and libzstd)
#   .bundle/lit/          lit, to run test/Integration there
#                         (PYTHONPATH=.bundle python3 -m lit ...)
#
# docs/development.md explains how to use it.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILE_STATIC_BUILD_DIR:-$root/build-static}"
bundle="$root/.bundle"
limit=$((40 * 1024 * 1024))

"$root/scripts/install-deps.sh"
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DTILE_STATIC_LINK=ON \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld-22
fi
cmake --build "$build" --target tile-run

# Only this script's files: python-bundle.sh puts .bundle/python beside them.
rm -rf "$bundle/tile-run" "$bundle/tile-run.xz" "$bundle/lit"
mkdir -p "$bundle"
/usr/lib/llvm-22/bin/llvm-strip -o "$bundle/tile-run" "$build/bin/tile-run"
xz -6 -T0 "$bundle/tile-run"
cp -r /usr/lib/llvm-22/utils/lit/lit "$bundle/lit"
find "$bundle/lit" -name __pycache__ -prune -exec rm -rf {} +
# Debian's lit package has no __main__ module; add one so that
# `python3 -m lit` runs it.
cat > "$bundle/lit/__main__.py" <<'EOF'
"""Runs lit (added by scripts/device-bundle.sh)."""
from lit.main import main

main()
EOF

size=$(du -cb "$bundle/tile-run.xz" "$bundle/lit" | tail -1 | cut -f1)
echo "device-bundle: $bundle is $((size / 1024 / 1024)) MiB"
if [ "$size" -gt "$limit" ]; then
  echo "device-bundle: larger than 40 MiB" >&2
  exit 1
fi
