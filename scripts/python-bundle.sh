#!/usr/bin/env bash
#===- scripts/python-bundle.sh - the Python package for the GPU machine --===#
#
# The GPU machine runs Python 3.12 and has no LLVM or MLIR. This builds the
# extension (tile._tile) for Python 3.12 (pyenv's, or $TILE_BUNDLE_PYTHON),
# statically linked against MLIR/LLVM (TILE_STATIC_LINK=ON, in
# build-static-py312/), strips and compresses it, and lays the package out in
# .bundle/python (git-ignored, under 64 MiB with the rest of .bundle):
#
#   .bundle/python/tile/...                      the package's Python files
#   .bundle/python/tile/_tile.cpython-312-*.so.xz  the extension, compressed
#   .bundle/python/deps/                         pytest and tqdm for Python 3.12
#   .bundle/python/unpack.sh                     makes an importable copy
#
# On the GPU machine, from the repository root (docs/python.md):
#
#   sh .bundle/python/unpack.sh /tmp/tilepy
#   TILE_TEST_TARGET=cuda PYTHONPATH=/tmp/tilepy python3 -m pytest -q python/tests
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILE_PY_STATIC_BUILD_DIR:-$root/build-static-py312}"
python="${TILE_BUNDLE_PYTHON:-$HOME/.pyenv/versions/3.12.1/bin/python3.12}"
out="$root/.bundle/python"
limit=$((40 * 1024 * 1024))

"$root/scripts/install-deps.sh"
if [ ! -x "$python" ]; then
  echo "python-bundle: no Python 3.12 at $python (set TILE_BUNDLE_PYTHON)" >&2
  exit 1
fi
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DTILE_STATIC_LINK=ON \
    -DTILE_ENABLE_PYTHON=ON -DPython_EXECUTABLE="$python" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld-22
fi
cmake --build "$build" --target TilePython

rm -rf "$out"
mkdir -p "$out"
# Real files, not the build tree's links.
cp -rL "$build/python/tile" "$out/tile"
find "$out" -name __pycache__ -prune -exec rm -rf {} +
so=$(cd "$out/tile" && ls _tile.cpython-312-*.so)
/usr/lib/llvm-22/bin/llvm-strip "$out/tile/$so"
xz -6 -T0 "$out/tile/$so"
# The GPU machine may lack pytest (and tqdm): bring them (pure Python).
"$python" -m pip install --quiet --disable-pip-version-check \
  --root-user-action=ignore --target "$out/deps" pytest tqdm
find "$out/deps" -name __pycache__ -prune -exec rm -rf {} +
cat > "$out/unpack.sh" <<'UNPACK'
#!/bin/sh
# Copies the package to $1 (default /tmp/tilepy) and decompresses the
# extension; then PYTHONPATH=$1 python3 -c "import tile" works.
set -e
here="$(cd "$(dirname "$0")" && pwd)"
dest="${1:-/tmp/tilepy}"
rm -rf "$dest/tile"
mkdir -p "$dest"
cp -r "$here/tile" "$dest/tile"
for f in "$dest"/tile/_tile*.so.xz; do xz -d "$f"; done
# pytest and tqdm, unless the interpreter has its own.
python3 -c "import pytest" 2>/dev/null || cp -r "$here/deps/." "$dest/"
echo "tile: importable with PYTHONPATH=$dest"
UNPACK
chmod +x "$out/unpack.sh"

size=$(du -sb "$out" | cut -f1)
echo "python-bundle: $out is $((size / 1024 / 1024)) MiB"
if [ "$size" -gt "$limit" ]; then
  echo "python-bundle: larger than 40 MiB" >&2
  exit 1
fi
