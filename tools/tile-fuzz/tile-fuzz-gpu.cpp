//===- tile-fuzz-gpu.cpp - Fuzz the GPU lowering up to PTX ----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-to-nvvm with format=isa: layout inference, convert-tile-to-gpu, the
// NVVM lowering and LLVM's NVPTX back end, stopping at PTX text (no ptxas).
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::tile::fuzz::runOneInput(
      data, size, "tile-to-nvvm{chip=sm_80 format=isa}");
}
