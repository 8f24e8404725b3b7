//===- tile-fuzz-rocdl.cpp - Fuzz the AMD lowering up to the ISA ----------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-to-rocdl with format=isa: layout inference for a 64-lane wave,
// convert-tile-to-gpu with the MFMA strategy, the ROCDL lowering and LLVM's
// AMDGPU back end, stopping at assembly (no ld.lld).
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::tile::fuzz::runOneInput(
      data, size, "tile-to-rocdl{chip=gfx942 format=isa}");
}
