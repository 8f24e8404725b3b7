#!/usr/bin/env bash
#===- scripts/gpu-sanitize.sh - GPU tests under compute-sanitizer --------===#
#
# Runs every GPU integration test (test/Integration) with each tile-run
# call under NVIDIA compute-sanitizer, once per tool:
#
#   scripts/gpu-sanitize.sh [memcheck|racecheck|synccheck|initcheck ...]
#
# (all four by default; TILE_SANITIZE_FILTER, a regular expression, keeps
# the tests whose names match it, as lit's --filter). On the GPU machine, from the repository root, with
# the device bundle unpacked as docs/development.md says: tile-run is taken
# from $TILE_BIN_DIR (default /tmp/tile/bin), lit from .bundle (PYTHONPATH)
# or the system. Each tool gets a wrapper tile-run that execs
# `compute-sanitizer --tool T --error-exitcode 86 ... tile-run "$@"`, so a
# report fails the lit test that triggered it. Logs go to $TILE_SANITIZE_OUT
# (default /tmp/tile/sanitize, or $OUT/sanitize when $OUT is set): lit's
# output per tool and one compute-sanitizer log per process. Prints one line
# per tool (tests passed and failed, sanitizer errors) and exits 1 if any
# tool found an error or a test failed.
#
#===-----------------------------------------------------------------------===#
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${TILE_BIN_DIR:-/tmp/tile/bin}"
out="${TILE_SANITIZE_OUT:-${OUT:+$OUT/sanitize}}"
out="${out:-/tmp/tile/sanitize}"
tools=("$@")
[ "${#tools[@]}" -gt 0 ] || tools=(memcheck racecheck synccheck initcheck)

sanitizer="$(command -v compute-sanitizer ||
             echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")"
if [ ! -x "$sanitizer" ]; then
  echo "gpu-sanitize: compute-sanitizer not found (PATH, \$CUDA_HOME/bin)" >&2
  exit 2
fi
if [ ! -x "$bin/tile-run" ]; then
  echo "gpu-sanitize: no tile-run in $bin (set TILE_BIN_DIR)" >&2
  exit 2
fi
export PYTHONPATH="$root/.bundle${PYTHONPATH:+:$PYTHONPATH}"
lit=(python3 -m lit)
python3 -c 'import lit' 2>/dev/null ||
  lit=("$(command -v lit || echo /usr/lib/llvm-22/bin/lit)")

status=0
for tool in "${tools[@]}"; do
  case "$tool" in
    memcheck) options=(--leak-check full --check-device-heap yes) ;;
    racecheck) options=(--racecheck-report all) ;;
    synccheck|initcheck) options=() ;;
    *) echo "gpu-sanitize: unknown tool '$tool'" >&2; exit 2 ;;
  esac
  dir="$out/$tool"
  rm -rf "$dir" && mkdir -p "$dir/bin" "$dir/logs" "$dir/lit"
  # The wrapper: one log per process, any report makes tile-run fail.
  {
    echo '#!/usr/bin/env bash'
    printf 'exec %q --tool %q' "$sanitizer" "$tool"
    printf ' %q' "${options[@]}" --error-exitcode 86 --print-limit 100 \
      --log-file "$dir/logs/%p.log" "$bin/tile-run"
    echo ' "$@"'
  } > "$dir/bin/tile-run"
  chmod +x "$dir/bin/tile-run"

  start=$(date +%s)
  TILE_BIN_DIR="$dir/bin" TILE_INTEGRATION_OUT="$dir/lit" \
    "${lit[@]}" -v ${TILE_SANITIZE_FILTER:+--filter "$TILE_SANITIZE_FILTER"} \
    "$root/test/Integration" > "$dir/lit.log" 2>&1
  lit_status=$?
  passed=$(grep -cE '^PASS: ' "$dir/lit.log")
  failed=$(grep -cE '^(FAIL|UNRESOLVED): ' "$dir/lit.log")
  unsupported=$(grep -cE '^UNSUPPORTED: ' "$dir/lit.log")
  errors=$(cat "$dir"/logs/*.log 2>/dev/null |
           grep -oE 'ERROR SUMMARY: [0-9]+' | awk '{n += $3} END {print n + 0}')
  runs=$(ls "$dir"/logs | wc -l)
  echo "gpu-sanitize: $tool: $passed passed, $failed failed, $unsupported unsupported; $errors errors in $runs tile-run processes ($(( $(date +%s) - start )) s)"
  if [ "$lit_status" -ne 0 ] || [ "$errors" -ne 0 ] || [ "$passed" -eq 0 ]; then
    status=1
    grep -lE 'ERROR SUMMARY: [1-9]' "$dir"/logs/*.log 2>/dev/null | head -3 |
      while read -r log; do echo "  $log:"; grep -m 5 -E '=========' "$log" | sed 's/^/    /'; done
    grep -E '^(FAIL|UNRESOLVED): ' "$dir/lit.log" | sed 's/^/  /'
  fi
done
exit $status
