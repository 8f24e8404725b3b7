//===- Passes.h - tile dialect passes ---------------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
#define TILE_DIALECT_TILE_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tile {

#define GEN_PASS_DECL
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_PASSES_H
