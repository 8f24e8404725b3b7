#!/usr/bin/env bash
#===- scripts/install-python-deps.sh - nanobind for the Python package ---===#
#
# Installs nanobind from PyPI into .cache/python-deps (git-ignored), where
# python/CMakeLists.txt finds it, for Debian's /usr/bin/python3 (the Debian
# packages the package needs are in scripts/install-deps.sh, which runs
# this). Idempotent.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NANOBIND_VERSION="${TILE_NANOBIND_VERSION:-3.1.0}"
deps="$root/.cache/python-deps"
if ! PYTHONPATH="$deps" /usr/bin/python3 -c "import nanobind" 2>/dev/null; then
  echo "install-python-deps: installing nanobind $NANOBIND_VERSION into $deps"
  /usr/bin/python3 -m pip install --quiet --disable-pip-version-check \
    --root-user-action=ignore --target "$deps" "nanobind==$NANOBIND_VERSION"
fi
