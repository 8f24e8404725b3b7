//===- TileToGPU.h - Lowering tile kernels to gpu.launch --------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_TILETOGPU_H
#define TILE_CONVERSION_TILETOGPU_TILETOGPU_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// Adds the pattern that rewrites a `tile.kernel` (whose buffers and loops
/// have layouts, inside a module with a GPU `tile.target`) into a
/// `gpu.launch` of per-thread code: it plans the kernel, then lowers every
/// tile op of the body with the op patterns of each family. A kernel that
/// cannot be lowered gets a diagnostic and stays (the pattern fails).
void populateTileToGPUPatterns(RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_TILETOGPU_H
