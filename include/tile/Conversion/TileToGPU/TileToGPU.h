//===- TileToGPU.h - Lowering tile kernels to gpu.launch --------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_TILETOGPU_TILETOGPU_H
#define TILE_CONVERSION_TILETOGPU_TILETOGPU_H

#include "tile/Conversion/TileToGPU/GpuCodegenOptions.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// Adds the pattern that rewrites a `tile.kernel` (whose buffers and loops
/// have layouts, inside a module with a GPU `tile.target`) into a
/// `gpu.launch` of per-thread code: it plans the kernel, then lowers every
/// tile op of the body through the op's GPU lowering model. A kernel that
/// cannot be lowered gets a diagnostic and stays (the pattern fails). The
/// context needs the models (registerGpuLoweringModels; convert-tile-to-gpu
/// registers them itself). `options` choose among the strategies the target
/// has.
void populateTileToGPUPatterns(RewritePatternSet &patterns,
                               const GpuCodegenOptions &options = {});

/// Attaches to the tile ops the models through which they are planned and
/// lowered to per-thread GPU code (GpuLoweringOpInterface, internal to the
/// TileToGPU library).
void registerGpuLoweringModels(DialectRegistry &registry);

} // namespace mlir::tile

#endif // TILE_CONVERSION_TILETOGPU_TILETOGPU_H
