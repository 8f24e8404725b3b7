//===- LoweringUtils.h - Helpers shared by the tile lowerings ---*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Pieces of tile semantics that every target lowers the same way: block
// rasterization, out-of-bounds predicates of global accesses, element
// conversions, and reduction identities and combiners.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_DIALECT_TILE_UTILS_LOWERINGUTILS_H
#define TILE_DIALECT_TILE_UTILS_LOWERINGUTILS_H

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// The block ids a kernel body sees for the launch ids `launchIds` of a
/// grid of `gridSizes`: the launch ids themselves, or with `raster`, the
/// rasterized ids (see RasterAttr): launch index L = x + y * gx walks a
/// panel of `panel` rows of grid dim 0 (order row; columns of grid dim 1
/// for order column) before the next.
SmallVector<Value> getBlockIds(OpBuilder &b, Location loc, ValueRange launchIds,
                               ValueRange gridSizes, RasterAttr raster);

/// The block ids of `kernel` (its body's arguments) that any of `values` is
/// computed from inside `kernel`, as a bit mask (bit d: block id d).
unsigned getBlockIdMask(KernelOp kernel, ValueRange values);

/// The block ids of the block at `linear` in a grid of `gridSizes` walked
/// with dim 0 fastest (a loop over all blocks, or a persistent kernel's
/// tiles): its launch ids, then getBlockIds.
SmallVector<Value> getBlockIdsOfLinear(OpBuilder &b, Location loc, Value linear,
                                       ValueRange gridSizes, RasterAttr raster);

/// `index[d] < size of `memref` dim d` for every d (unsigned compares, so
/// negative indices are out of bounds too); null when every index is
/// provably in bounds.
Value buildInBounds(OpBuilder &b, Location loc, Value memref,
                    ValueRange index);

/// Barriers in memory for targets without hardware ones (the CPU's team of
/// threads): word `index` of `state` (memref<?xi64>, zero at first) holds
/// a barrier's completed phases (high 32 bits) and the arrivals of its
/// current phase (low 32). The running thread arrives at it, which
/// completes a phase of `count` (i64) arrivals; returns the word as it was
/// before (i64).
Value buildMemoryBarrierArrive(OpBuilder &b, Location loc, Value state,
                               Value index, Value count);
/// Spins until the phase of parity `parity` (i1) of the barrier at word
/// `index` of `state` has completed (the current phase's parity differs),
/// calling `pause` in each round.
void buildMemoryBarrierWait(OpBuilder &b, Location loc, Value state,
                            Value index, Value parity,
                            function_ref<void(OpBuilder &, Location)> pause);
/// The running thread arrives at the barrier at word `index` of `state`
/// (`count` arrivals a phase), then waits for the phase it arrived in to
/// complete: a barrier of `count` threads.
void buildMemoryBarrierSync(OpBuilder &b, Location loc, Value state,
                            Value index, int64_t count,
                            function_ref<void(OpBuilder &, Location)> pause);
/// The low bit of an index value, as i1 (a barrier phase's parity).
Value buildLowBit(OpBuilder &b, Location loc, Value index);

/// The index of a thread in `unit`s (tile.thread_id's) from its index
/// `thread` in the block, for warps of `warpSize` threads.
Value buildThreadIndex(OpBuilder &b, Location loc, ThreadUnit unit,
                       Value thread, int64_t warpSize);

/// Replaces tile.fence `fence` with an LLVM fence of its order at
/// `syncScope` (the target's name for the whole device; empty: the
/// system's).
void replaceFence(RewriterBase &rewriter, FenceOp fence, StringRef syncScope);
/// replaceFence for each tile.fence in `root`.
void lowerFences(RewriterBase &rewriter, Operation *root, StringRef syncScope);

/// Converts a scalar between integer or float types (ext/trunc, sign
/// extension for integers).
Value convertScalar(OpBuilder &b, Location loc, Value value, Type to);

/// The identity of a reduction kind on `type`.
Value buildReduceIdentity(OpBuilder &b, Location loc, ReduceKind kind,
                          Type type);
/// Folds `value` into `acc` for a reduction kind (|value| for absmax and
/// abssum).
Value buildReduceCombine(OpBuilder &b, Location loc, ReduceKind kind,
                         Value acc, Value value);
/// Combines two partial results of the same reduction (no |x|).
Value buildReduceMerge(OpBuilder &b, Location loc, ReduceKind kind, Value lhs,
                       Value rhs);

/// `lhs * rhs + acc` in the accumulator's type.
Value buildMulAdd(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc);

/// The value read outside a global tensor: `pad` if given, else zero.
Value buildPadValue(OpBuilder &b, Location loc, TypedAttr pad, Type type);

/// Reads `memref[index]`; with `guard`, an index outside the memref reads
/// the pad value instead.
Value buildGuardedLoad(OpBuilder &b, Location loc, Value memref,
                       ValueRange index, bool guard, TypedAttr pad);

/// Runs `body` under `scf.if guard` (directly when `guard` is null).
void buildGuarded(OpBuilder &b, Location loc, Value guard,
                  function_ref<void(OpBuilder &)> body);

/// Runs `write` when `memref[index]` is inside the memref (always without
/// `guard`): how writes outside a global tensor are dropped.
void buildGuardedWrite(OpBuilder &b, Location loc, Value memref,
                       ValueRange index, bool guard,
                       function_ref<void(OpBuilder &, Location)> write);

/// Where element (row, column) of a tile.im2col's column tile comes from.
struct Im2ColIndex {
  /// i1: inside the image (not padding, nor past the pixels or filter).
  Value inside;
  /// Its (n, h, w, c) index in the image (meaningful where `inside`).
  SmallVector<Value> at;
};
/// The source in `image` (`op`'s, as the lowering sees it) of element
/// (row, column) of `op`'s column tile for its blocks `pixelBlock` and
/// `kBlock` (Im2ColOp's formula).
Im2ColIndex buildIm2ColIndex(OpBuilder &b, Location loc, Im2ColOp op,
                             Value image, Value pixelBlock, Value kBlock,
                             Value row, Value column);

} // namespace mlir::tile

#endif // TILE_DIALECT_TILE_UTILS_LOWERINGUTILS_H
