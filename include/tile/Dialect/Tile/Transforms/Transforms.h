//===- Transforms.h - tile dialect transformations --------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The logic of the tile passes, as functions that tools, tests and other
// compilers can call directly.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_TRANSFORMS_TRANSFORMS_H
#define TILE_DIALECT_TILE_TRANSFORMS_TRANSFORMS_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Target/Target.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// Gives every fragment, shared buffer and parallel loop of `kernel` a
/// layout (see the tile-infer-layouts pass). With `explain`, emits a remark
/// on each saying why. Fails with diagnostics on conflicts.
LogicalResult inferLayouts(KernelOp kernel, const TargetInfo &target,
                           bool explain = false);

/// Places the barriers that `kernel`'s threads need between their accesses
/// to shared memory, if it reads a thread index (see the
/// tile-insert-barriers pass). Fails with a diagnostic where its tile ops
/// would see operands, or run under control flow, that differ between
/// threads.
LogicalResult insertBarriers(KernelOp kernel);

/// The 32-bit registers that `kernel`'s fragments take in all (the block's
/// threads share them), each fragment `scale(fragment)` times as large
/// where `scale` is given.
int64_t
getFragmentRegisters(KernelOp kernel,
                     llvm::function_ref<int64_t(FragmentOp)> scale = nullptr);

/// Shared memory a kernel keeps beside its buffers (mbarriers, reduction and
/// layout-conversion scratch): what passes that grow shared buffers leave
/// free of the chip's.
constexpr int64_t kSharedMemoryReserve = 8 * 1024;

/// The pipelined loop whose copies fill `alloc`, if any (its stages are the
/// buffer's copies in shared memory).
PipelinedOp getFillingLoop(AllocSharedOp alloc);

/// Merges neighbouring blocks of `kernel`'s grid into blocks with a tile
/// wide enough for the widest wgmma, and 128 rows high where it had 64 (see
/// the tile-merge-blocks pass), where
/// at least `minBlocks` remain and, with a `target`, the fragments and
/// shared buffers fit it (its gemm loop's stages reduced, not below 2).
/// Returns whether it changed the kernel.
bool mergeBlocks(RewriterBase &rewriter, KernelOp kernel, int64_t minBlocks,
                 const TargetInfo *target);

/// Merges consecutive iterations of the pipelined GEMM loop `loop` so that
/// its K steps reach `bytes` (see the tile-widen-k-steps pass), keeping its
/// kernel's shared buffers within `sharedBytes` when given (with fewer
/// stages, not below 2). Returns whether it changed the loop.
bool widenKSteps(RewriterBase &rewriter, PipelinedOp loop, int64_t bytes,
                 std::optional<int64_t> sharedBytes);

/// Attaches LayoutInferenceOpInterface to the tile ops (the rules of
/// tile-infer-layouts: gemm, parallel, reduce, copy, cumsum).
void registerLayoutInferenceModels(DialectRegistry &registry);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_TRANSFORMS_TRANSFORMS_H
