//===- TileToGPU.h - Lowering tile kernels to gpu.launch --------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_TILETOGPU_H
#define TILE_CONVERSION_TILETOGPU_TILETOGPU_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Target/Target.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// Rewrites `kernel` (whose buffers and loops have layouts) into a
/// gpu.launch of per-thread code for `target`. Fails with a diagnostic on
/// the op that cannot be lowered.
LogicalResult lowerKernelToGPU(RewriterBase &rewriter, KernelOp kernel,
                               const TargetInfo &target);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_TILETOGPU_H
