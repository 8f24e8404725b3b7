#!/usr/bin/env bash
#===- scripts/install-deps.sh - install build and test dependencies -------===#
#
# Installs every system package the project needs on Debian 12 (bookworm):
# LLVM/MLIR 22, the dev libraries their CMake packages link against, the build
# tools, and numpy for the test suite's reference computations. Idempotent:
# packages that are already present are skipped. Without a CUDA toolkit,
# ptxas and libdevice come from NVIDIA's wheels (install-cuda-wheels.sh).
#
#===-----------------------------------------------------------------------===#
set -euo pipefail

LLVM_VERSION=22
PACKAGES=(
  build-essential cmake ninja-build ccache git python3 python3-pip
  "llvm-${LLVM_VERSION}-dev" "libmlir-${LLVM_VERSION}-dev"
  "mlir-${LLVM_VERSION}-tools" "llvm-${LLVM_VERSION}-tools"
  "clang-${LLVM_VERSION}" "lld-${LLVM_VERSION}"
  # compiler-rt's builtins, which the JIT binds host code to (and the
  # sanitizer and libFuzzer runtimes of scripts/sanitize.sh, fuzz.sh).
  "libclang-rt-${LLVM_VERSION}-dev"
  # LLVM's OpenMP runtime: CPU kernels run their blocks on all cores.
  "libomp-${LLVM_VERSION}-dev"
  libzstd-dev zlib1g-dev libz3-dev libedit-dev libxml2-dev libffi-dev
  libncurses-dev libgtest-dev
  # HIP's headers: the ROCm runtime (lib/Runtime/ROCm) is built and
  # unit-tested without an AMD GPU.
  libamdhip64-dev
  # lit runs on Debian's python3; execution tests compute references with
  # numpy on that same interpreter.
  python3-numpy
  # The Python package (python/) builds for that interpreter and its tests
  # run there (pytest; tqdm draws par_compile's progress bars).
  python3-dev python3-pytest python3-tqdm
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: system packages present"
fi

# nanobind, the Python extension's binding library (from PyPI).
"$(dirname "${BASH_SOURCE[0]}")/install-python-deps.sh"
# ptxas and libdevice from NVIDIA's wheels where no CUDA toolkit is found.
"$(dirname "${BASH_SOURCE[0]}")/install-cuda-wheels.sh"
