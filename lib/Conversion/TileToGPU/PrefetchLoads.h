//===- PrefetchLoads.h - Global loads of a pipeline one step ahead -*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu: the loops a pipeline strategy builds are
// marked (markForPrefetch); once the kernel is lowered, the loads they make
// from global tensors the kernel only reads are issued one iteration early
// (prefetchLoads, PrefetchLoads.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_PREFETCHLOADS_H
#define TILE_LIB_CONVERSION_TILETOGPU_PREFETCHLOADS_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile::gpu_lowering {

/// Marks `loop`, the main loop of a pipelined tile.pipelined, for
/// prefetchLoads.
void markForPrefetch(scf::ForOp loop);

/// In every marked loop of `launch` (the mark is removed): each load, in the
/// loop's body or under branches of it, from a global memref that no op of
/// the launch writes (every use a read), whose address and branch conditions
/// the loop computes without memory effects from its induction variable and
/// values from outside, is issued for the next iteration at the top of the
/// body and carried to it (the first iteration's before the loop). The
/// element work of a dequantizing pipeline (a scale per group of K, read in
/// the loop) then waits for no load.
void prefetchLoads(RewriterBase &rewriter, Operation *launch);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_PREFETCHLOADS_H
