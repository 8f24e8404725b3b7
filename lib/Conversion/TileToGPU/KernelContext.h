//===- KernelContext.h - Lowering one tile.kernel to per-thread code -*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. The patterns that lower a kernel's tile
// ops share one KernelContext: the kernel's plan, the thread id, and the
// storage the kernel pattern gave each buffer (fragments become per-thread
// arrays indexed by static slot numbers, shared buffers 1-d views of the
// block's dynamic shared memory). Ops are lowered in program order, region
// by region, so a pattern may lower the ops it moves into a new region
// (a pipelined loop's body) in a LoweringScope of its own: the stage each
// multi-buffered buffer is read at there, the gemms left in flight.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_KERNELCONTEXT_H
#define TILE_LIB_CONVERSION_TILETOGPU_KERNELCONTEXT_H

#include "GpuLowering.h"
#include "KernelPlan.h"
#include "LayoutCodegen.h"
#include "TargetCodegen.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <map>

namespace mlir::tile::gpu_lowering {

/// A fragment after lowering: `slots` registers per thread.
struct FragmentStorage {
  Value slots; // memref<S x T> (private)
  Layout layout;
  FragmentType type;

  /// This thread's slot `slot`, plus `offset` slots when given (the
  /// private array is then indexed at run time).
  Value load(OpBuilder &b, Location loc, int64_t slot,
             Value offset = Value()) const;
  void store(OpBuilder &b, Location loc, int64_t slot, Value value,
             Value offset = Value()) const;
  /// The slot at `index` (an index value).
  Value loadAt(OpBuilder &b, Location loc, Value index) const;
  void storeAt(OpBuilder &b, Location loc, Value index, Value value) const;
};

/// A shared buffer (or scratch) after lowering: a 1-d view of the dynamic
/// block. Multi-buffered for a software pipeline: `stages` copies of
/// `stageElements` elements; `stageOffset` (elements), set in a view of
/// the buffer at one stage (KernelContext::getStage), selects the copy the
/// code being generated uses.
struct SharedStorage {
  Value memory; // memref<N x T, #gpu.address_space<workgroup>>
  Layout layout;
  MemRefType type;
  int64_t stages = 1;
  int64_t stageElements = 0;
  Value stageOffset;
};

/// What only Hopper's (sm_90) kernels have: TMA's tensor maps, the
/// warp-specialized split of the block and the clusters it multicasts in.
struct HopperState {
  /// The tensor map of each TMA producer copy and TMA store (a device
  /// pointer created on the host before the launch, which the kernel views
  /// as its nvgpu descriptor type).
  llvm::DenseMap<Operation *, std::pair<Value, Type>> tensorMaps;
  /// For each pipelined loop with a TMA version and each TMA store (a
  /// copy), whether the host found its tensors aligned (createTensorMaps).
  llvm::DenseMap<Operation *, Value> tmaReady;
  /// Warp specialization (plan.warpSpecialized): the loop's mbarriers, made
  /// before the block splits into consumers and producer, and the op
  /// before which the producer warpgroup's code goes.
  Value producerBarriers;
  Operation *producerEnd = nullptr;
  /// Persistent and warp-specialized: the consumers' place in the stages'
  /// ring from one tile to the next (memref<4xindex>: the stage to read
  /// and its phase, the stage to give back and its phase).
  Value pipelineState;
  /// Clustered (plan.isClustered()): i1, the block is one of a pair that
  /// multicasts (the launch's clusters have 2 blocks), and i32, the ranks
  /// of this block and of the other in the pair.
  Value multicast;
  Value clusterRank;
  Value peerRank;
};

/// What holds while a block is lowered, beyond the kernel: inside a
/// pipelined loop, the stage each of its multi-buffered buffers is read at
/// and the gemms the loop waits for itself. A scope holds what its
/// enclosing scope holds (KernelContext::getScope) and adds its own.
struct LoweringScope {
  /// Multi-buffered buffers as the block reads them: at one stage.
  llvm::SmallDenseMap<Value, SharedStorage, 4> staged;
  /// Gemms issued and committed, not waited for.
  llvm::SmallPtrSet<Operation *, 4> inFlight;
};

class KernelContext {
public:
  explicit KernelContext(const KernelPlan &plan)
      : plan(plan), target(plan.target),
        codegen(TargetCodegen::get(plan.target)), threads(plan.threads) {}

  const KernelPlan &plan;
  const TargetInfo &target;
  /// The vendor's side of the code (named barriers, fences, ...).
  const TargetCodegen &codegen;
  int64_t threads;
  /// The thread's id (index) as the kernel's code uses it: gpu.thread_id x
  /// (`launchThreadId`), or in a persistent kernel on NVIDIA a read of it
  /// per tile that LLVM cannot hoist, so that what is computed from it is
  /// not kept live across the tiles' loops.
  Value threadId;
  Value launchThreadId;
  /// The thread's index in the block, as tile.thread_id reads it: the
  /// kernel's `threadId`, which in a tile.thread_range counts from the
  /// range's first thread instead (and `threads` is the range's).
  Value blockThreadId;
  /// In a tile.thread_range: the named barrier its threads synchronize on
  /// (0: the whole block's gpu.barrier).
  int64_t rangeBarrierId = 0;
  /// The named barrier of each thread range (first and last thread + 1)
  /// lowered so far.
  std::map<std::pair<int64_t, int64_t>, int64_t> rangeBarrierIds;
  /// The mbarriers of each tile.alloc_barrier (nvgpu.mbarrier.group).
  llvm::DenseMap<Value, Value> barrierGroups;
  /// The dynamic shared memory block (memref<?xi8, workgroup>).
  Value dynamicShared;
  /// Bytes from the block's start to its first 1024-byte aligned address,
  /// where the plan's offsets count from (null: the block starts aligned).
  /// Static shared memory (mbarriers) moves the dynamic block off the
  /// alignment that swizzled TMA and wgmma operands need.
  Value sharedAlignment;
  llvm::DenseMap<Value, FragmentStorage> fragments;
  llvm::DenseMap<Value, SharedStorage> shared;
  /// Persistent (plan.persistent): the consumers' scf.for over the tiles
  /// (the kernel's body is its body), which a producer warpgroup walks the
  /// same way.
  Operation *tileLoop = nullptr;
  /// TMA, warp specialization and clusters (sm_90).
  HopperState hopper;

  /// What the plan decided for an op of the kernel (or a clone of one, see
  /// recordClones).
  const GemmPlan &getGemmPlan(GemmOp op) const;
  const Layout &getLoopLayout(ParallelOp op) const;
  const FragmentTransfer &getTransfer(CopyOp op) const;
  /// Ops in `mapping` (from cloning kernel ops) share their originals' plan.
  void recordClones(const IRMapping &mapping);
  /// The planned op a clone copies (the op itself if it is not a clone).
  Operation *getPlanned(Operation *op) const;

  /// The storage of a buffer, or null when it is not of that kind; a
  /// multi-buffered one at the stage the current scope reads.
  const FragmentStorage *getFragment(Value buffer) const;
  const SharedStorage *getShared(Value buffer) const;
  /// Multi-buffered `buffer` at `stage` (index).
  SharedStorage getStage(OpBuilder &b, Location loc, Value buffer,
                         Value stage) const;
  /// Whether `gemm` (or the op it is a clone of) is left in flight: issued
  /// and committed, not waited for, as the current scope says.
  bool isInFlight(Operation *gemm) const;

  /// A view of `op`'s planned scratch as memref<count x type>.
  Value getScratch(OpBuilder &b, Location loc, Operation *op, int64_t count,
                   Type type) const;
  /// A view of the dynamic block at `byteOffset` as memref<count x type>.
  Value viewShared(OpBuilder &b, Location loc, int64_t byteOffset,
                   int64_t count, Type type) const;
  /// The byte offset into the dynamic block of the plan's `byteOffset`.
  Value sharedByteOffset(OpBuilder &b, Location loc, Value byteOffset) const;

  //===--------------------------------------------------------------------===//
  // Layout arithmetic for this kernel's threads (see LayoutCodegen.h)
  //===--------------------------------------------------------------------===//

  Value constant(OpBuilder &b, Location loc, int64_t value) const {
    return constantIndex(b, loc, value);
  }
  /// Synchronizes the kernel's threads: `gpu.barrier`, or a named barrier
  /// over the consumer threads of a warp-specialized kernel.
  void barrier(OpBuilder &b, Location loc) const;
  /// Makes this thread's writes to shared memory visible to the block: a
  /// barrier, after a proxy fence where the tensor cores (wgmma) or the copy
  /// engine read shared memory through the async proxy.
  void publishShared(OpBuilder &b, Location loc) const;
  /// The logical index of slot `slot` of this thread (or of `thread`).
  SmallVector<Value> fragmentIndex(OpBuilder &b, Location loc,
                                   const Layout &fragment, int64_t slot,
                                   Value thread = Value()) const;
  /// i1: this thread holds slot `slot` (copy 0 with `firstCopyOnly`); null
  /// when always.
  Value ownsSlot(OpBuilder &b, Location loc, const Layout &fragment,
                 int64_t slot, bool firstCopyOnly) const {
    return buildOwnsSlot(b, loc, fragment, slot, firstCopyOnly, threadId,
                         threads);
  }
  std::optional<int64_t> mapSlot(const Layout &source, int64_t sourceSlot,
                                 const Layout &target,
                                 ArrayRef<unsigned> dims) const {
    return gpu_lowering::mapSlot(source, sourceSlot, target, dims, threads);
  }
  /// Element offset of `index` in a shared buffer (layout, swizzle and
  /// stage).
  Value sharedOffset(OpBuilder &b, Location loc, const SharedStorage &buffer,
                     ValueRange index) const;

  //===--------------------------------------------------------------------===//
  // Lowering the ops
  //===--------------------------------------------------------------------===//

  /// Lowers the tile ops of `block`, in order, each through its
  /// GpuLoweringOpInterface (and those of nested regions of other ops), in
  /// the current scope or in `scope`.
  LogicalResult lowerBlock(Block &block, PatternRewriter &rewriter);
  LogicalResult lowerBlock(Block &block, PatternRewriter &rewriter,
                           const LoweringScope &scope);
  /// The scope of the block being lowered (empty at the kernel's level).
  const LoweringScope &getScope() const { return *scope; }

private:
  LoweringScope kernelScope;
  const LoweringScope *scope = &kernelScope;
  llvm::DenseMap<Operation *, Operation *> clones;
};

//===----------------------------------------------------------------------===//
// Kernel-level code of the families
//===----------------------------------------------------------------------===//

/// Host code before the launch (TensorMaps.cpp): the tensor maps of the
/// kernel's TMA producers and TMA stores, and whether each TMA pipeline
/// and store may run (their tensors' rows are 16-byte aligned).
void createTensorMaps(KernelContext &context, OpBuilder &b, Location loc,
                      KernelOp kernel);
/// The TMA stores of `copy`'s tile (isTmaStore) from its staged scratch at
/// `scratchOffset` bytes, written and fenced for the async proxy, to
/// `origin` (row, column) of its destination, issued and committed by
/// thread 0 and left in flight (TmaCopies.cpp).
void emitTmaStores(const KernelContext &k, OpBuilder &b, Location loc,
                   CopyOp copy, int64_t scratchOffset, ValueRange origin);
/// TmaCopies.cpp: the TMA loads of `copy` (one of plan.tmaBarrierLoads):
/// the first thread of its range adds the tile's bytes to the barrier's
/// expected transactions and issues them, completing on the barrier.
void emitTmaBarrierLoad(const KernelContext &k, OpBuilder &b, Location loc,
                        CopyOp copy);
/// Thread 0 waits until the TMA stores it issued have read their scratch:
/// before a TMA store writes its scratch again, and at the kernel's end
/// (where `threadId` is the launch's).
void waitForTmaStoreReads(const KernelContext &k, OpBuilder &b, Location loc,
                          Value threadId);
/// Warp specialization (plan.warpSpecialized), at the start of the launch
/// (WarpSpecialization.cpp): the loop's mbarriers set up by the whole block, then
/// the split into the consumer threads (setmaxnreg up) and the producer
/// warpgroup (down). Returns the op before which the kernel's code goes
/// (the consumers'); sets the HopperState's producerBarriers, producerEnd
/// and, clustered, multicast and the ranks.
Operation *splitWarpSpecialized(KernelContext &context, OpBuilder &b,
                                Location loc);

//===----------------------------------------------------------------------===//
// Code shared by the families
//===----------------------------------------------------------------------===//

/// Calls `body` with this thread's logical indices of a tile of `shape`,
/// elements dealt round-robin over the block's threads (under a guard
/// where the threads do not divide them). With `width`, units are runs of
/// `width` innermost elements and the index is each run's first element.
void forEachDealtElement(
    const KernelContext &k, OpBuilder &b, Location loc,
    ArrayRef<int64_t> shape,
    function_ref<void(OpBuilder &, Location, ValueRange)> body,
    int64_t width = 1);

/// Threads.cpp: the mbarriers of `op`, made and initialized by the whole
/// block where it is (each then holds its arrival count), in `k`.
void createBarrierGroup(KernelContext &k, OpBuilder &b, AllocBarrierOp op);

/// Each thread writes the elements its slots hold (copy 0) to `shared`.
void storeFragmentToShared(const KernelContext &k, OpBuilder &b, Location loc,
                           const FragmentStorage &fragment,
                           const SharedStorage &shared);
/// Each thread fills all its slots from `shared`.
void loadFragmentFromShared(const KernelContext &k, OpBuilder &b,
                            Location loc, const SharedStorage &shared,
                            const FragmentStorage &fragment);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_KERNELCONTEXT_H
