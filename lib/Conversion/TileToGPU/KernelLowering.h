//===- KernelLowering.h - State of one tile.kernel's GPU lowering -*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. A KernelLowering turns one tile.kernel
// into a gpu.launch: fragments become per-thread private arrays indexed by
// static slot numbers, shared buffers become 1-d views into the block's
// dynamic shared memory addressed through their layouts, and each tile op
// becomes the per-thread code its layouts imply.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_KERNELLOWERING_H
#define TILE_LIB_CONVERSION_TILETOGPU_KERNELLOWERING_H

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Layout/FragmentLayouts.h"
#include "tile/Target/Target.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::tile::gpu_lowering {

/// A fragment after lowering: `slots` registers per thread.
struct FragmentStorage {
  Value slots; // memref<S x T> (private)
  Layout layout;
  FragmentType type;
};

/// A shared buffer after lowering: a 1-d view of the dynamic block.
struct SharedStorage {
  Value memory; // memref<N x T, #gpu.address_space<workgroup>>
  Layout layout;
  MemRefType type;
  /// Multi-buffered for a software pipeline: `stages` copies of
  /// `stageElements` elements; `stageOffset` (elements) selects the copy
  /// the code being generated uses.
  int64_t stages = 1;
  int64_t stageElements = 0;
  Value stageOffset;
};

/// How a tile.pipelined loop is pipelined: its global-to-shared copies
/// (producers) run ahead of the rest of the body as cp.async.
struct PipelinePlan {
  int64_t stages = 1;
  SmallVector<CopyOp> producers;
};

class KernelLowering {
public:
  KernelLowering(RewriterBase &rewriter, KernelOp kernel,
                 const TargetInfo &target);

  /// Rewrites the kernel into a gpu.launch.
  LogicalResult run();

  //===--------------------------------------------------------------------===//
  // Used by the op lowerings
  //===--------------------------------------------------------------------===//

  RewriterBase &rewriter;
  KernelOp kernel;
  const TargetInfo &target;
  int64_t threads;
  /// gpu.thread_id x, as index.
  Value threadId;

  llvm::DenseMap<Value, FragmentStorage> fragments;
  llvm::DenseMap<Value, SharedStorage> shared;
  llvm::DenseMap<Operation *, PipelinePlan> pipelines;

  Value constant(OpBuilder &b, Location loc, int64_t value);

  /// The logical index of slot `slot` of this thread (or of `thread`) in
  /// `fragment` (a fragment layout); threads that hold nothing there compute
  /// garbage: see ownsSlot.
  SmallVector<Value> fragmentIndex(OpBuilder &b, Location loc,
                                   const Layout &fragment, int64_t slot,
                                   Value thread = Value());
  /// Whether slot `slot` exists in `fragment` for some thread (static).
  bool isSlotUsed(const Layout &fragment, int64_t slot);
  /// i1: this thread holds slot `slot` (and, with `firstCopyOnly`, holds
  /// copy 0 of the element there); null when that is always true.
  Value ownsSlot(OpBuilder &b, Location loc, const Layout &fragment,
                 int64_t slot, bool firstCopyOnly);
  /// The slot holding the element `sourceSlot` of `source` is on, in
  /// `target`, for this thread: the same for every thread, or std::nullopt.
  /// `dims[d]` is the dim of `source` that target dim d reads (a projection
  /// when target has fewer dims).
  std::optional<int64_t> mapSlot(const Layout &source, int64_t sourceSlot,
                                 const Layout &target,
                                 ArrayRef<unsigned> dims);

  /// The row-major index of `linear` in `shape` (the outermost dim is not
  /// bounded).
  SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear,
                                 ArrayRef<int64_t> shape);

  /// i1: `v % n == 0`.
  Value isMultipleOf(OpBuilder &b, Location loc, Value v, int64_t n);
  /// i1, uniform over the block: every row of the global `memref` starts at
  /// an address aligned to `elements` elements (base pointer, offset and
  /// every stride but the innermost). Runs of `elements` starting at a
  /// column that is a multiple of `elements` are then aligned too.
  Value areRowsAligned(OpBuilder &b, Location loc, Value memref,
                       int64_t elements);

  /// Output `outDim` of `layout` at a run-time `index` (one value per input
  /// dim of `layout`; constants fold), before any swizzle.
  Value applyLayout(OpBuilder &b, Location loc, const Layout &layout,
                    ValueRange index, unsigned outDim);
  /// The thread holding replica `replica` of fragment element `index`.
  Value fragmentThread(OpBuilder &b, Location loc, const Layout &fragment,
                       ValueRange index, int64_t replica);

  /// Element offset of `index` in a shared buffer (layout and swizzle).
  Value sharedOffset(OpBuilder &b, Location loc, const SharedStorage &buffer,
                     ValueRange index);

  /// Emits `gpu.barrier`.
  void barrier(OpBuilder &b, Location loc);

  /// A view of scratch at `byteOffset` as memref<count x type>.
  Value scratchView(OpBuilder &b, Location loc, int64_t byteOffset,
                    int64_t count, Type type);

  LogicalResult lowerOps(Block &block);

  /// The layout of a shared buffer (linear when it has none).
  FailureOr<Layout> getSharedLayout(AllocSharedOp alloc);

private:
  LogicalResult planSharedMemory();
  LogicalResult lowerOp(Operation *op);

  /// The dynamic shared memory block (memref<?xi8, workgroup>).
  Value dynamicShared;
  int64_t sharedBytes = 0;
};

/// Op lowerings (Copies.cpp, Gemm.cpp, Reductions.cpp). Each rewrites `op`
/// at its position and erases it.
LogicalResult lowerCopy(KernelLowering &k, CopyOp op);
LogicalResult lowerFill(KernelLowering &k, FillOp op);
LogicalResult lowerAtomicAdd(KernelLowering &k, AtomicAddOp op);
LogicalResult lowerParallel(KernelLowering &k, ParallelOp op);
LogicalResult lowerGemm(KernelLowering &k, GemmOp op);
LogicalResult lowerReduce(KernelLowering &k, ReduceOp op);
LogicalResult lowerCumSum(KernelLowering &k, CumSumOp op);
/// A tile.pipelined loop: plain scf.for, or software-pipelined with
/// cp.async per its plan.
LogicalResult lowerPipelined(KernelLowering &k, PipelinedOp op);

/// Decides how `op` is pipelined (see PipelinePlan); a plan with no
/// producers runs the loop as written. Fails with a diagnostic on a
/// schedule it cannot honor.
FailureOr<PipelinePlan> planPipeline(KernelLowering &k, PipelinedOp op);

/// Bytes of shared scratch an op needs (reductions across warps, scans of
/// fragments), planned before lowering.
int64_t getReduceScratchBytes(KernelLowering &k, ReduceOp op);
int64_t getCumSumScratchBytes(KernelLowering &k, CumSumOp op);
/// Bytes of shared scratch a fragment-to-fragment copy needs (0 when its
/// threads exchange data in registers).
int64_t getCopyScratchBytes(KernelLowering &k, CopyOp op);

/// Calls `body` with this thread's logical indices of a tile of `shape`,
/// elements dealt round-robin over the block's threads (under a guard
/// where the threads do not divide them). With `width`, units are runs of
/// `width` innermost elements and the index is each run's first element.
void forEachDealtElement(
    KernelLowering &k, OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
    function_ref<void(OpBuilder &, Location, ValueRange)> body,
    int64_t width = 1);

/// Each thread writes the elements its slots hold (copy 0) to `shared`.
void storeFragmentToShared(KernelLowering &k, OpBuilder &b, Location loc,
                           const FragmentStorage &fragment,
                           const SharedStorage &shared);
/// Each thread fills all its slots from `shared`.
void loadFragmentFromShared(KernelLowering &k, OpBuilder &b, Location loc,
                            const SharedStorage &shared,
                            const FragmentStorage &fragment);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_KERNELLOWERING_H
