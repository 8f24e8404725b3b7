//===- KernelPlan.h - How one tile.kernel is laid out on a GPU --*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. A KernelPlan is the analysis that decides,
// before any IR changes, everything about a kernel that more than one op's
// lowering must agree on: the layout of every fragment and shared buffer,
// where each shared buffer and each op's scratch lives in the block's
// dynamic shared memory (reused between buffers whose lives do not overlap),
// how each tile.pipelined loop is software-pipelined, and how each gemm and
// each copy between fragments is computed. Errors (a schedule that cannot
// be honored, too much shared memory) are reported while planning, so the
// rewrite that follows never stops half-way.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_KERNELPLAN_H
#define TILE_LIB_CONVERSION_TILETOGPU_KERNELPLAN_H

#include "tile/Conversion/TileToGPU/GpuCodegenOptions.h"
#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/GemmPlan.h"
#include "tile/Layout/FragmentTransfer.h"
#include "tile/Target/Target.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile::gpu_lowering {

/// Shared buffers start at multiples of this (what TMA's 128-byte swizzle
/// and wgmma's descriptors need of absolute addresses).
constexpr int64_t kSharedAlignment = 1024;

/// A shared buffer: its layout and, for a software pipeline, `stages` copies
/// of `stageElements` elements at `offset` bytes into the dynamic block.
struct SharedBufferPlan {
  Layout layout;
  MemRefType type;
  int64_t stages = 1;
  int64_t stageElements = 0;
  int64_t offset = 0;

  /// Bytes of one stage.
  int64_t stageBytes() const {
    return stageElements * llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
};

/// How a tile.pipelined loop is pipelined: its global-to-shared copies
/// (producers) run `stages - 1` iterations ahead of the rest of the body;
/// no producers: the loop runs as written.
struct PipelinePlan {
  int64_t stages = 1;
  SmallVector<CopyOp> producers;
  /// tile.im2col producers (cp.async chunks; they keep a loop off TMA).
  SmallVector<Im2ColOp> gathers;

  bool hasProducers() const { return !producers.empty() || !gathers.empty(); }
  /// The shared buffers the producers fill, and the rotated ones, one copy
  /// per stage.
  SmallVector<Value> getStagedBuffers() const {
    SmallVector<Value> buffers;
    for (CopyOp copy : producers)
      buffers.push_back(copy.getDest());
    for (Im2ColOp gather : gathers)
      buffers.push_back(gather.getCol());
    llvm::append_range(buffers, rotated);
    return buffers;
  }
  /// The producers can also be bulk tensor copies (TMA) completing on
  /// mbarriers: their global tensors are defined outside the kernel and
  /// their tiles are TMA boxes. The loop then gets a TMA version, taken when
  /// the host finds every tensor aligned for it.
  bool tma = false;
  /// The target has no asynchronous copies: the producers load the next
  /// iteration's tiles into registers while the body runs and store them
  /// into the other of two stages after it (RegisterPipeline.cpp).
  bool registers = false;
  /// wgmma gemms of the body whose accumulator nothing else in the loop
  /// touches, whose A is in shared memory and whose operands the loop
  /// writes only through its producers or rotated buffers: the TMA version
  /// leaves them in flight across iterations (waiting for the previous one
  /// before giving its stage back).
  SmallVector<Operation *> asyncGemms;
  /// Shared buffers an asynchronous gemm reads that the body itself fills
  /// (a dequantizing T.Parallel's output), wholly, before any other use in
  /// the iteration and used nowhere else: one copy per stage, iteration j
  /// using stage j mod s as it does its producers' stages, so that the
  /// next iteration writes another copy than the gemm left in flight reads.
  SmallVector<Value> rotated;
  /// Warp-specialized and clustered (pairs of blocks along the grid's x):
  /// the producers whose tile is the same for both blocks of a pair; each
  /// block loads half of its boxes and TMA multicasts them to both.
  SmallVector<CopyOp> multicast;
  /// Warp-specialized, FlashAttention-3's intra-warpgroup overlap: the
  /// body's last op, a wgmma gemm reading a stage, is issued one iteration
  /// late, right after the next iteration's `deferredAfter` (the body's
  /// other gemm), and waited for before `deferredWait` (the first op after
  /// that gemm which touches its operands; null: the end of the body, or
  /// with `deferredConvert` the start of the iteration after), so that the
  /// work in between (attention's softmax) runs while it does.
  Operation *deferredGemm = nullptr;
  /// The ops between `deferredWait` and it that go with it (attention's
  /// rescale of the accumulator), in order.
  SmallVector<Operation *> deferredWith;
  Operation *deferredAfter = nullptr;
  Operation *deferredWait = nullptr;
  /// The copy of `deferredAfter`'s result into the deferred gemm's A
  /// (attention's P = S) when it was the wait point: it moves to the start
  /// of the next iteration, and the deferred gemm is waited for just before
  /// it, at the start of the iteration after the one that issued it (ptxas
  /// does not move that wait across the back edge into the softmax).
  Operation *deferredConvert = nullptr;
};

class KernelPlan {
public:
  /// Plans `kernel` (whose fragments and loops have layouts) for `target`;
  /// fails with a diagnostic on the op that cannot be planned.
  /// `options` choose among the strategies the target has.
  static FailureOr<KernelPlan> build(KernelOp kernel, const TargetInfo &target,
                                     const GpuCodegenOptions &options = {});

  TargetInfo target;
  GpuCodegenOptions options;
  int64_t threads = 0;
  /// Layouts of the kernel's fragments (tile.fragment results).
  llvm::DenseMap<Value, Layout> fragments;
  /// Layouts of the kernel's tile.parallel iteration spaces.
  llvm::DenseMap<Operation *, Layout> loops;
  /// The kernel's shared buffers (tile.alloc_shared results).
  llvm::DenseMap<Value, SharedBufferPlan> shared;
  /// Byte offset of the shared scratch of each op that needs some.
  llvm::DenseMap<Operation *, int64_t> scratch;
  llvm::DenseMap<Operation *, PipelinePlan> pipelines;
  llvm::DenseMap<Operation *, GemmPlan> gemms;
  /// How each copy between two fragments moves its elements.
  llvm::DenseMap<Operation *, FragmentTransfer> transfers;
  /// Tensors from outside the kernel that no op of it writes (tables of
  /// block indices, sequence lengths): a read of one gives the same value
  /// wherever and whenever the kernel makes it. Tensors passed separately
  /// do not overlap (as TileLang's __restrict__ pointers).
  llvm::DenseSet<Value> constantTensors;
  /// The pipelined loop whose TMA version is warp-specialized (null:
  /// none): a producer warpgroup of its own, after the kernel's `threads`,
  /// issues its copies; the kernel's code runs on the consumer threads
  /// (0 .. threads-1), which synchronize through a named barrier.
  Operation *warpSpecialized = nullptr;
  /// The kernel is `persistent`: min(tiles, multiprocessors)
  /// blocks walk the grid's tiles (the body in a loop over them).
  bool persistent = false;
  /// The kernel has tile.thread_range regions, which run at the same time
  /// as each other: its pipelined loops run as written, its shared buffers
  /// and scratch each have memory of their own for the whole kernel, and
  /// the ops in a range are planned for the range's threads.
  bool threadRanges = false;
  /// The barriers the kernel makes (tile.alloc_barrier): mbarriers in
  /// static shared memory, 8 bytes each.
  int64_t barrierCount = 0;
  /// The copies that signal a barrier (tile.copy ... barrier) and load by
  /// TMA (sm_90, isTmaLoad): one thread of their range issues them, their
  /// bytes counted on the barrier, where the host finds the tensor aligned
  /// (else the range's threads copy).
  SmallVector<CopyOp> tmaBarrierLoads;
  /// Bytes of dynamic shared memory the block needs.
  int64_t sharedBytes = 0;
  /// The async proxy (wgmma, TMA) reads or writes shared memory that
  /// threads write: their writes are fenced (fence.proxy.async) before the
  /// barrier that publishes them.
  bool asyncProxyUsesShared = false;

  /// Blocks are launched in clusters of 2 along x (when the grid's x is
  /// even) to share the multicast producers' tiles.
  bool isClustered() const {
    return warpSpecialized &&
           !pipelines.find(warpSpecialized)->second.multicast.empty();
  }
  /// Threads the block is launched with (the producer warpgroup too).
  int64_t getLaunchThreads() const {
    return threads + (warpSpecialized ? getProducerThreads() : 0);
  }
  /// A warp-specialized kernel's producer threads: one warpgroup.
  int64_t getProducerThreads() const { return target.warpgroupSize; }

  /// The layout of a fragment value of this kernel.
  const Layout &getFragmentLayout(Value fragment) const {
    return fragments.find(fragment)->second;
  }

private:
  LogicalResult planBuffers(KernelOp kernel);
  LogicalResult planSharedMemory(KernelOp kernel);
  /// Places the kernel's shared buffers and scratch (the optional staging
  /// of stores too, with `staging`); returns the bytes the block needs.
  int64_t placeSharedMemory(KernelOp kernel, bool staging);
  /// Turns the register pipeline with the largest stage back into its loop
  /// as written (single buffers); whether there was one.
  bool dropLargestRegisterPipeline(KernelOp kernel);
  /// With `deepen-pipelines`: gives the asynchronous pipelines written with
  /// fewer than four stages more, one at a time while the block's shared
  /// memory fits and the blocks a multiprocessor holds (as estimated) do
  /// not drop; returns the bytes the block then needs.
  int64_t deepenPipelines(KernelOp kernel, int64_t needed);
  /// Blocks of this kernel one multiprocessor holds with `sharedBytes` of
  /// shared memory each, by that and by the registers its fragments take.
  int64_t estimateBlocksPerMultiprocessor(int64_t sharedBytes) const;
};

//===----------------------------------------------------------------------===//
// What the op families need planned (defined next to their lowerings)
//===----------------------------------------------------------------------===//

/// The buffers (view roots) that `scope` and the ops nested in it write;
/// std::nullopt when one of them may write memory it does not name (no
/// memory-effect interface, or a write without a value).
std::optional<llvm::DenseSet<Value>> findWrittenBuffers(Operation *scope);

/// Pipelining.cpp: sets `plan.warpSpecialized` to the pipelined loop of
/// `kernel` to warp-specialize, if any: the one TMA pipeline of the kernel,
/// a statement of its body, on a target with `warp-specialize`, when its
/// bounds and tiles' origins can be computed by the producer (pure ops of
/// the body). With `tma-multicast`, lists the loop's producers that the
/// blocks of a cluster pair share (their tiles' origins do not depend on
/// the block id that differs within a pair, nor do the loop's bounds).
void planWarpSpecialization(KernelPlan &plan, KernelOp kernel);

/// TensorMaps.cpp: whether `copy`'s staged store (a fragment into a
/// global tensor through shared scratch) goes out by TMA: with `tma-store`
/// (sm_90a's default), in a persistent kernel, a 2-d tensor from outside
/// the kernel, a tile of at most 256 rows whose rows span a multiple of
/// 128 bytes. The scratch is then 128-byte swizzled panels, one bulk
/// tensor store each, which may still be read while the next tile runs:
/// it is the copy's alone.
bool isTmaStore(const KernelPlan &plan, CopyOp copy);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_KERNELPLAN_H
