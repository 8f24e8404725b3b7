//===- tile-fuzz-infer.cpp - Fuzz parse, verify, tile-infer-layouts -------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "FuzzTarget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return mlir::tile::fuzz::runOneInput(
      data, size, "tile-attach-target{chip=sm_80},tile-infer-layouts");
}
