//===- Pipelines.h - tile compilation pipelines -----------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The pass pipelines that take a tile program to a target: tile-to-cpu
// (host loops, then LLVM), and, with their issues, tile-to-nvvm and
// tile-to-rocdl. Registered in tile-opt as `--tile-to-cpu` etc.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PIPELINES_PIPELINES_H
#define TILE_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::tile {

/// tile-to-cpu: tile kernels to loops (convert-tile-to-cpu), cleaned up and
/// lowered to the LLVM dialect, ready for the ExecutionEngine.
void buildTileToCPUPipeline(OpPassManager &pm);

/// Registers every tile pipeline with the pass registry.
void registerTilePipelines();

} // namespace mlir::tile

#endif // TILE_PIPELINES_PIPELINES_H
