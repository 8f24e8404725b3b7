#!/usr/bin/env bash
#===- scripts/install-cuda-wheels.sh - ptxas and libdevice from PyPI -----===#
#
# tile compiles PTX with LLVM, but links CUDA's libdevice (math functions)
# into it and assembles cubins with ptxas. A machine without a CUDA toolkit
# gets both from NVIDIA's wheels on PyPI, nvidia-cuda-nvcc (ptxas, fatbinary)
# and nvidia-nvvm (libdevice), of CUDA 13.0 (what driver 580 loads), into
# .cache/cuda (git-ignored): their toolkit directory .cache/cuda/nvidia/cu13
# is one of the places tile's toolkit search looks (docs/pipeline.md).
# Does nothing where a toolkit with both is found ($CUDA_HOME, $CUDA_PATH,
# ptxas on $PATH, /usr/local/cuda), unless TILE_CUDA_WHEELS=1 forces it;
# TILE_CUDA_WHEELS=0 skips it. Idempotent.
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CUDA_WHEEL_VERSION="${TILE_CUDA_WHEEL_VERSION:-13.0.*}"
target="$root/.cache/cuda"
toolkit="$target/nvidia/cu13"

has_toolkit() {  # a directory with both libdevice and an executable ptxas
  [ -n "$1" ] && [ -f "$1/nvvm/libdevice/libdevice.10.bc" ] && [ -x "$1/bin/ptxas" ]
}

force="${TILE_CUDA_WHEELS:-auto}"
[ "$force" = 0 ] && exit 0
if [ "$force" != 1 ]; then
  ptxas_dir=""
  if command -v ptxas >/dev/null; then
    ptxas_dir="$(dirname "$(dirname "$(readlink -f "$(command -v ptxas)")")")"
  fi
  for dir in "${CUDA_HOME:-}" "${CUDA_PATH:-}" "$ptxas_dir" /usr/local/cuda; do
    if has_toolkit "$dir"; then
      echo "install-cuda-wheels: CUDA toolkit found at $dir"
      exit 0
    fi
  done
fi
if has_toolkit "$toolkit"; then
  echo "install-cuda-wheels: CUDA wheels present in $toolkit"
  exit 0
fi
echo "install-cuda-wheels: installing nvidia-cuda-nvcc and nvidia-nvvm $CUDA_WHEEL_VERSION into $target"
/usr/bin/python3 -m pip install --quiet --disable-pip-version-check \
  --root-user-action=ignore --no-deps --upgrade --target "$target" \
  "nvidia-cuda-nvcc==$CUDA_WHEEL_VERSION" "nvidia-nvvm==$CUDA_WHEEL_VERSION"
has_toolkit "$toolkit" || {
  echo "install-cuda-wheels: the wheels did not provide $toolkit/bin/ptxas and libdevice" >&2
  exit 1
}
