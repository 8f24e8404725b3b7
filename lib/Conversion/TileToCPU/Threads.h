//===- Threads.h - A block's threads as an OpenMP team ----------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The CPU lowering of kernels that read thread indices or split their
// threads (tile.thread_range, tile.alloc_barrier): each block's threads run
// as an OpenMP team, its code outside tile ops in every thread, its tile
// ops in the first thread of the team (or of their thread range) between
// barriers. A thread range's barriers and the kernel's own are words of
// memory the threads update atomically and spin on.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOCPU_THREADS_H
#define TILE_LIB_CONVERSION_TILETOCPU_THREADS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile::cpu_lowering {

/// The warp size thread indices count lanes and warps in on the host
/// (NVIDIA's).
constexpr int64_t kCpuWarpSize = 32;

/// In a kernel whose block runs as a team of threads, `thread` the running
/// one's index: thread indices from it, barriers as the team's, and each
/// tile op (and each print of a buffer, by one thread) run by the team's
/// first thread while the others wait.
void lowerThreadOps(KernelOp kernel, Value thread, RewriterBase &rewriter);

} // namespace mlir::tile::cpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOCPU_THREADS_H
