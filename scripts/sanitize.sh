#!/usr/bin/env bash
#===- scripts/sanitize.sh - the test suite under ASan and UBSan ----------===#
#
# Builds tile-opt, tile-run, the JIT, the runtimes, the fuzz targets and the
# unit tests with AddressSanitizer and UndefinedBehaviorSanitizer (clang-22,
# LLVM's LLVM_USE_SANITIZER=Address;Undefined with LLVM's UBSan flags, which
# the installed CMake package leaves empty; assertions on) in
# $TILE_ASAN_BUILD_DIR (default build-asan/), then runs the whole test suite
# (check-tile) there:
#
#   scripts/sanitize.sh                       # build, run check-tile
#   scripts/sanitize.sh --build-only TARGETS  # build TARGETS only
#
# The build is also instrumented for coverage (-fsanitize=fuzzer-no-link),
# so that scripts/fuzz.sh links its libFuzzer targets in the same tree
# instead of a third build. Any sanitizer report aborts the process that
# made it and so fails its test. Debian's libMLIR/libLLVM are not
# instrumented: what they do inside is not checked, what tile does with them
# is.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILE_ASAN_BUILD_DIR:-$root/build-asan}"
targets=(check-tile)
if [ "${1:-}" = "--build-only" ]; then
  shift
  targets=("$@")
fi

"$root/scripts/install-deps.sh" > /dev/null

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld-22 \
    -DLLVM_USE_SANITIZER="Address;Undefined" \
    -DLLVM_UBSAN_FLAGS="-fsanitize=undefined -fno-sanitize=vptr,function -fno-sanitize-recover=all" \
    -DLLVM_USE_SANITIZE_COVERAGE=ON > /dev/null
fi

# A report aborts (SIGABRT): an exit code of 1 would pass for a diagnostic
# in tests that expect one (`not tile-opt`, the mutation tests). Leaks are
# reported too; UBSan stops at the first report, with a stack. LLVM's
# BumpPtrAllocator poisons its slabs in instrumented code only, and
# MLIRContext's allocators are shared with Debian's uninstrumented
# libMLIR, whose allocations would then look poisoned: allow_user_poisoning=0
# turns that bookkeeping off (ASan still checks every access of tile's code).
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:allow_user_poisoning=0:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-abort_on_error=1:print_stacktrace=1:halt_on_error=1}"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-$(command -v llvm-symbolizer-22 || true)}"
# Tests that load tile's shared libraries into upstream's uninstrumented
# mlir-opt, or build an outside project against the installed package,
# cannot run in a sanitized tree.
export LIT_FILTER_OUT="${LIT_FILTER_OUT:-Embedding/(plugin|install)\.test}"
start=$(date +%s)
cmake --build "$build" -- "${targets[@]}"
if [ "${targets[*]}" = check-tile ]; then
  echo "sanitize: check-tile under ASan+UBSan passed in $(( $(date +%s) - start )) s"
fi
