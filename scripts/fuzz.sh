#!/usr/bin/env bash
#===- scripts/fuzz.sh - coverage-guided fuzzing with libFuzzer -----------===#
#
# Builds the fuzz targets (tools/tile-fuzz) with libFuzzer, AddressSanitizer
# and UndefinedBehaviorSanitizer (clang-22; the whole project instrumented
# for coverage) in scripts/sanitize.sh's tree ($TILE_ASAN_BUILD_DIR, default
# build-asan/), seeds each target's corpus with examples/ and every .mlir
# test input (split at "// -----"), and runs each target for SECONDS
# (default 60) seconds (inputs of XFAIL tests, known crashes, are left
# out):
#
#   scripts/fuzz.sh [SECONDS] [infer|gpu|rocdl|cpu ...]
#
# The targets run side by side, TILE_FUZZ_JOBS at a time (default: the
# number of cores).
#
#   tile-fuzz-infer  parse, verify, tile-infer-layouts
#   tile-fuzz-gpu    parse, verify, tile-to-nvvm up to PTX (no ptxas)
#   tile-fuzz-rocdl  parse, verify, tile-to-rocdl up to AMDGPU assembly
#   tile-fuzz-cpu    parse, verify, tile-to-cpu, translation to LLVM IR
#
# A crash, a sanitizer report, an input that runs longer than
# $TILE_FUZZ_TIMEOUT seconds (default 60: hangs and compile-time blowups
# count; the largest seed, test/Execution/ops/wgmma.mlir's ten GEMM kernels,
# takes about 20 s to AMDGPU assembly under ASan, more on a loaded machine)
# or one that needs more than 4 GiB is a finding: libFuzzer stops and
# leaves it in build-asan/findings/<target>/. Each finding becomes a lit
# regression test (test/Fuzz). Corpora persist in build-asan/corpus/ between
# runs. Prints, per target, the inputs run, the corpus size, the coverage
# (libFuzzer's cov/ft counters) and the findings; exits 1 on any finding.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TILE_ASAN_BUILD_DIR:-$root/build-asan}"
seconds="${1:-60}"
shift || true
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=(infer gpu rocdl cpu)
timeout="${TILE_FUZZ_TIMEOUT:-60}"

# The targets link libFuzzer in scripts/sanitize.sh's build tree (ASan,
# UBSan and coverage instrumentation).
TILE_ASAN_BUILD_DIR="$build" "$root/scripts/sanitize.sh" --build-only \
  "${targets[@]/#/tile-fuzz-}"

# Seeds: every example and test input, one file per "// -----" chunk.
seeds="$build/seeds"
rm -rf "$seeds" && mkdir -p "$seeds"
python3 - "$root" "$seeds" <<'EOF'
import hashlib, pathlib, sys
root, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
files = sorted(root.glob("examples/*.mlir")) + sorted(root.glob("test/**/*.mlir"))
for path in files:
    # Known crashes (XFAIL tests, e.g. test/Robustness/known-crash-*.mlir)
    # are tracked there; as seeds they would end every run at once.
    if "XFAIL:" in path.read_text():
        continue
    for chunk in path.read_text().split("// -----"):
        if "tile." in chunk:
            name = hashlib.sha1(chunk.encode()).hexdigest()
            (out / name).write_text(chunk)
EOF

# As scripts/sanitize.sh sets them (allow_user_poisoning=0: see there).
export ASAN_OPTIONS="${ASAN_OPTIONS:-allow_user_poisoning=0:detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
findings=0
marker="$build/fuzz-started"
touch "$marker"

# One target: its exit status goes to fuzz-<target>.status.
fuzz_target() {
  local target=$1 status=0
  local corpus="$build/corpus/$target" artifacts="$build/findings/$target"
  mkdir -p "$corpus" "$artifacts"
  "$build/bin/tile-fuzz-$target" "$corpus" "$seeds" \
    -max_total_time="$seconds" -timeout="$timeout" -rss_limit_mb=4096 \
    -dict="$root/tools/tile-fuzz/tile.dict" -only_ascii=1 \
    -artifact_prefix="$artifacts/" -print_final_stats=1 \
    > "$build/fuzz-$target.log" 2>&1 || status=$?
  echo "$status" > "$build/fuzz-$target.status"
}

# The targets run side by side, $TILE_FUZZ_JOBS at a time (default: one a
# core). Each is one process on one core, and replaying the seeds takes
# the GPU and AMD targets most of their time (minutes, beyond SECONDS),
# so running them together halves the wall time on two cores.
jobs_max="${TILE_FUZZ_JOBS:-$(nproc)}"
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
    wait -n || true
  done
  fuzz_target "$target" &
done
wait

for target in "${targets[@]}"; do
  corpus="$build/corpus/$target" artifacts="$build/findings/$target"
  log="$build/fuzz-$target.log"
  status=$(cat "$build/fuzz-$target.status")
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | grep -oE 'cov: [0-9]+ ft: [0-9]+' || echo "cov: ?")
  # slow-unit-* files are inputs over 10 s that still finished within the
  # timeout (the flash attention example is one under ASan): not findings.
  found=$(find "$artifacts" -type f -newer "$marker" ! -name 'slow-unit-*' | wc -l)
  echo "tile-fuzz-$target: $runs inputs in ${seconds} s, corpus $(ls "$corpus" | wc -l) files, $cov, $found findings (exit $status)"
  if [ "$found" -gt 0 ] || [ "$status" -ne 0 ]; then
    findings=$((findings + 1))
    find "$artifacts" -type f -newer "$marker" ! -name 'slow-unit-*' | sed 's/^/  finding: /'
    grep -E 'ERROR|SUMMARY|==[0-9]+==|timeout' "$log" | head -5 | sed 's/^/  /'
  fi
done
exit $((findings > 0))
