#!/usr/bin/env bash
#===- scripts/install-python-deps.sh - what the Python package needs -----===#
#
# Debian packages for building the extension and running its tests on the
# interpreter lit uses (/usr/bin/python3: headers, pytest, tqdm, numpy), and
# nanobind from PyPI into .cache/python-deps (git-ignored), where
# python/CMakeLists.txt finds it. Idempotent. scripts/install-deps.sh runs it.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGES=(python3-dev python3-pytest python3-tqdm python3-numpy python3-pip)
NANOBIND_VERSION="${TILE_NANOBIND_VERSION:-3.1.0}"

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-python-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

deps="$root/.cache/python-deps"
if ! PYTHONPATH="$deps" /usr/bin/python3 -c "import nanobind" 2>/dev/null; then
  echo "install-python-deps: installing nanobind $NANOBIND_VERSION into $deps"
  /usr/bin/python3 -m pip install --quiet --disable-pip-version-check \
    --root-user-action=ignore --target "$deps" "nanobind==$NANOBIND_VERSION"
fi
