//===- InitTile.h - Register everything tile provides -----------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// For tools and compilers that embed tile: one call registers the tile
// dialect with the upstream dialects, interfaces, GPU targets and LLVM IR
// translations its pipelines use; another registers its passes and
// pipelines with the pass registry.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_INITTILE_H
#define TILE_INITTILE_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::tile {

/// The tile dialect; func, arith, math, memref, scf, cf, vector, gpu, nvgpu,
/// nvvm, amdgpu, rocdl, llvm and the others its lowerings produce; their
/// interface extensions; the NVVM/ROCDL target attributes' serialization;
/// and the translations to LLVM IR.
void registerTileDialects(DialectRegistry &registry);

/// tile-infer-layouts, convert-tile-to-cpu, convert-tile-to-gpu, and the
/// tile-to-cpu / tile-to-nvvm pipelines.
void registerTilePassesAndPipelines();

} // namespace mlir::tile

#endif // TILE_INITTILE_H
