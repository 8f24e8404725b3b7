#!/usr/bin/env bash
#===- scripts/test.sh - install, build and run the whole test suite ------===#
#
# On a fresh Debian 12 machine: installs the dependencies, builds tile, and
# runs every test (lit + FileCheck, gtest units, CPU execution tests), then
# the Python package's tests (pytest on the CPU target).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" check-tile
"$root/scripts/build.sh" check-tile-python
