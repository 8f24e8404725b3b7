#!/usr/bin/env bash
#===- scripts/test.sh - install, build and run the whole test suite ------===#
#
# On a fresh Debian 12 machine: installs the dependencies, builds tile, and
# runs every test (lit + FileCheck, gtest units, CPU execution tests), then
# the Python package's tests (pytest on the CPU target), then each libFuzzer
# target for $TILE_CI_FUZZ_SECONDS seconds (default 60; 0 skips it) in the
# sanitizer build (scripts/fuzz.sh: a crash, sanitizer report or hang fails).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" check-tile
"$root/scripts/build.sh" check-tile-python
fuzz_seconds="${TILE_CI_FUZZ_SECONDS:-60}"
if [ "$fuzz_seconds" -gt 0 ]; then
  "$root/scripts/fuzz.sh" "$fuzz_seconds"
fi
