#!/usr/bin/env bash
#===- scripts/test.sh - install, build and run the test suite ------------===#
#
# On a fresh Debian 12 machine: installs the dependencies, builds tile once
# (build/, Release) and runs every test: check-tile (lit + FileCheck, the
# gtest units, the CPU execution tests, those again for a baseline x86-64
# CPU) and the Python package's tests (pytest on the CPU target, again for a
# baseline x86-64). GPU tests report unsupported without a GPU.
#
# Fuzzing is scripts/fuzz.sh (a second, sanitizer build); .ci/run runs both.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" check-tile check-tile-python
