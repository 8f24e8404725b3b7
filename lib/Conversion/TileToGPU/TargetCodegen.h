//===- TargetCodegen.h - What NVVM and ROCDL code differ in -----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. The lowering builds target-neutral code
// (gpu, arith, memref, vector, scf) where it can; the few places where
// NVIDIA's and AMD's code differ (named barriers, the async proxy's fence,
// how the thread id is read, loads that fill past a tensor's end with
// zeros, scheduling fences) ask the kernel's TargetCodegen, which has one
// implementation per vendor under Targets/ (as Triton's TargetInfoBase).
// What a chip has is TargetInfo's (tile/Target/Target.h); which strategy a
// kernel takes is its plan's. The strategies that exist on one vendor only
// (TMA, wgmma, mma.sync: Strategies/; MFMA) build that vendor's ops
// themselves.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_TARGETCODEGEN_H
#define TILE_LIB_CONVERSION_TILETOGPU_TARGETCODEGEN_H

#include "tile/Target/Target.h"

#include "mlir/IR/Builders.h"

namespace mlir::tile::gpu_lowering {

/// How long one mbarrier try_wait suspends the thread (ns) before trying
/// again (NVIDIA, sm_90).
constexpr int64_t kMBarrierWaitTicks = 10000000;

class TargetCodegen {
public:
  virtual ~TargetCodegen();

  /// The codegen of `target`'s vendor (NVIDIA or AMD).
  static const TargetCodegen &get(const TargetInfo &target);

  /// Waits until `threads` threads (whole warps) have arrived at barrier
  /// `id` (> 0; barrier 0 is the whole block's gpu.barrier). Only where the
  /// plan split the block (warp specialization, NVIDIA).
  virtual void namedBarrier(OpBuilder &b, Location loc, int64_t id,
                            int64_t threads) const = 0;

  /// Barriers that threads arrive at and wait on (tile.alloc_barrier): a
  /// group of `count` in shared memory, not yet initialized; null where the
  /// target has none.
  virtual Value createBarrierGroup(OpBuilder &b, Location loc,
                                   int64_t count) const = 0;
  /// Initializes barrier `index` (index) of `group` to complete a phase
  /// after `arrivals` (index) arrivals; one thread does it.
  virtual void initBarrier(OpBuilder &b, Location loc, Value group, Value index,
                           Value arrivals) const = 0;
  /// This thread arrives at barrier `index` of `group` (release).
  virtual void arriveAtBarrier(OpBuilder &b, Location loc, Value group,
                               Value index) const = 0;
  /// This thread waits until the phase of parity `parity` (i1) of barrier
  /// `index` of `group` has completed (acquire).
  virtual void waitForBarrier(OpBuilder &b, Location loc,
                              const TargetInfo &target, Value group,
                              Value index, Value parity) const = 0;

  /// Makes this thread's writes to shared memory visible to the
  /// asynchronous proxy (the copy engine's and the tensor cores' reads of
  /// shared memory, on NVIDIA) once a barrier follows. A target without
  /// such a proxy builds nothing.
  virtual void fenceSharedForAsyncProxy(OpBuilder &b, Location loc) const = 0;

  /// A read of the thread id (x) that stays where it is built, for code
  /// in a loop whose addresses should not be hoisted out of it (kept live
  /// across the loop); null where the kernel's own read serves.
  virtual Value rereadThreadId(OpBuilder &b, Location loc) const = 0;

  /// A view of global memref `memref` whose loads past its end return
  /// zeros (AMD's buffer resources), or null where there is none. Its
  /// offsets are 32-bit: `fits` is set to an i1 saying whether the
  /// memref's extent fits them.
  virtual Value getZeroFillingView(OpBuilder &b, Location loc, Value memref,
                                   Value &fits) const = 0;

  /// Keeps the instruction scheduler from moving instructions across this
  /// point, where the target's scheduler would otherwise trade latency
  /// hiding for registers (AMD); nothing elsewhere.
  virtual void schedulingFence(OpBuilder &b, Location loc) const = 0;

  /// The LLVM synchronization scope of the whole device (every thread of a
  /// launch), tile.fence's scope.
  virtual StringRef getDeviceSyncScope() const = 0;

  /// The most elements of type `element` one atomic add to global memory
  /// takes as a vector on `target`; 1 where it takes one at a time.
  virtual int64_t getAtomicAddVectorWidth(const TargetInfo &target,
                                          Type element) const = 0;

  /// Adds the vector `v` (at most getAtomicAddVectorWidth's width)
  /// atomically, relaxed at device scope, to the consecutive elements of
  /// the global memref `memref` from `index`: all in bounds, the first
  /// aligned to the vector's size.
  virtual void buildAtomicAddVector(OpBuilder &b, Location loc, Value memref,
                                    ValueRange index, Value v) const = 0;
};

/// The implementations (Targets/NVVMCodegen.cpp, Targets/ROCDLCodegen.cpp).
const TargetCodegen &getNVVMCodegen();
const TargetCodegen &getROCDLCodegen();

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_TARGETCODEGEN_H
