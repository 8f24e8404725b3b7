#!/usr/bin/env bash
#===- scripts/without-cuda.sh - run a command as if CUDA were not installed ===#
#
# Runs COMMAND [ARGS...] as on a fresh machine without a CUDA toolkit: in a
# private mount namespace (unshare; needs root or user namespaces), every
# /usr/local/cuda* directory is an empty one and every CUDA tool on $PATH
# (ptxas, nvcc, fatbinary, ... and wrappers of them such as
# /usr/local/bin/ptxas) is hidden: its directory is an empty one, or in
# /usr/bin the tool is covered by /dev/null, which cannot be executed.
# Nothing changes outside the command. `without-cuda.sh --check` exits 0
# when this machine can do it.
#
#   scripts/without-cuda.sh ./scripts/test.sh
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

if [ "${1:-}" = --inside ]; then
  shift
  empty="$(mktemp -d)"
  for dir in /usr/local/cuda*; do
    [ -e "$dir" ] || continue
    mount --bind "$empty" "$(readlink -f "$dir")"
  done
  # A directory of tools outside the system's (/usr/local/bin, say) is
  # hidden whole; in /usr/bin or /bin only the tool is.
  for tool in ptxas nvcc fatbinary nvlink cuobjdump nvdisasm cudafe++ \
              compute-sanitizer ncu; do
    while path="$(command -v "$tool" 2>/dev/null)" && [ -x "$path" ]; do
      case "$(dirname "$path")" in
        /usr/bin|/bin|/usr/sbin|/sbin) mount --bind /dev/null "$path" ;;
        *) mount --bind "$empty" "$(dirname "$path")" ;;
      esac
      hash -r
    done
  done
  [ "${TILE_WITHOUT_CUDA_CHECK:-0}" = 1 ] && exit 0
  exec "$@"
fi

if [ "${1:-}" = --check ]; then
  TILE_WITHOUT_CUDA_CHECK=1 exec unshare --mount -- "$0" --inside true 2>/dev/null
fi
[ "$#" -gt 0 ] || { echo "usage: $0 COMMAND [ARGS...] | --check" >&2; exit 2; }
if ! unshare --mount -- true 2>/dev/null; then
  if unshare --mount --map-root-user -- true 2>/dev/null; then
    exec unshare --mount --map-root-user -- "$0" --inside "$@"
  fi
  echo "without-cuda: cannot make a mount namespace here (unshare needs root or user namespaces)" >&2
  exit 2
fi
exec unshare --mount -- "$0" --inside "$@"
