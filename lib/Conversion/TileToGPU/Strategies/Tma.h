//===- Tma.h - The TMA pipeline's pieces ------------------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Internal to convert-tile-to-gpu. The TMA version of a pipelined loop
// (sm_90) is built from pieces, each in a file of its own:
//
//   TensorMaps.cpp   what a tile moved by TMA is (its boxes, the element
//                    type its map is declared with) and the host code that
//                    encodes the maps before the launch;
//   StageRing.cpp    the ring of stages: a `full` and an `empty` mbarrier
//                    per stage, the stage and phase a loop is at;
//   TmaCopies.cpp    the copies: the loads that fill one stage, the stores
//                    of a persistent kernel's output tiles;
//   WarpSpecialization.cpp  the split of a block into consumer warps and
//                    a producer warpgroup, and the producer's loop;
//   TmaPipeline.cpp  the consumers' loop (and, without warp specialization,
//                    the filling thread's part of it), with gemms in flight
//                    and the deferred gemm.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_TMA_H
#define TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_TMA_H

#include "../KernelContext.h"

#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir::tile::gpu_lowering {

//===----------------------------------------------------------------------===//
// Boxes and tensor maps (TensorMaps.cpp)
//===----------------------------------------------------------------------===//

/// How a TMA producer's tile is moved: `loads` boxes of `rows` x `columns`
/// elements, one per swizzle panel (or one for a row-major tile).
struct TmaBox {
  int64_t rows, columns, loads;
  int64_t swizzleBytes; // 0: none
};

/// The boxes of a shared buffer's tile; none when TMA cannot fill it (not
/// 2-d, a layout other than row-major or a TMA swizzle, a box too large).
std::optional<TmaBox> getTmaBox(const SharedBufferPlan &buffer);
/// The element type tensor maps, their sources and their boxes are declared
/// with: 8-bit types move as ui8 (upstream derives the map's data type from
/// it and knows neither 8-bit floats nor signless i8).
Type getTmaElementType(Type type);
/// The tensor map type of `copy`'s TMA stores (isTmaStore): boxes of the
/// tile's rows by one 128-byte swizzle panel.
nvgpu::TensorMapDescriptorType getTmaStoreMapType(CopyOp copy);

//===----------------------------------------------------------------------===//
// The ring of stages (StageRing.cpp)
//===----------------------------------------------------------------------===//

/// A shared-memory pointer (!llvm.ptr<3>) to mbarrier `index` of the
/// nvgpu.mbarrier.group `barriers`, for the NVVM ops that take one.
Value getMBarrierPointer(OpBuilder &b, Location loc, Value barriers,
                         Value index);

/// A place in the ring: a stage (index) and the phase (i1) its mbarrier is
/// in there.
struct RingPosition {
  Value stage;
  Value phase;
};

/// The mbarriers of a `stages`-stage pipeline: `full` i (index i) completes
/// a phase when stage i is filled (one arrival with the stage's bytes),
/// `empty` i (index stages + i) when its readers have given it back.
class StageRing {
public:
  StageRing() = default;
  StageRing(const KernelContext &k, Value barriers, int64_t stages)
      : k(&k), barriers(barriers), stages(stages) {}

  /// Thread 0 sets up the ring (`emptyCount` arrivals give a stage back)
  /// between two barriers of the kernel's threads; of the whole block with
  /// `wholeBlock` (before a warp-specialized block splits); of the cluster
  /// with `cluster`, whose blocks arrive on each other's mbarriers. The
  /// stages may reuse memory other buffers used through the generic proxy:
  /// it is fenced before the copy engine writes.
  static StageRing create(const KernelContext &k, OpBuilder &b, Location loc,
                          int64_t stages, Value emptyCount, bool wholeBlock,
                          bool cluster);

  Value getBarriers() const { return barriers; }
  int64_t getStages() const { return stages; }

  /// The place after `position`: the next stage, the phase flipped where
  /// the ring wraps round.
  RingPosition advance(OpBuilder &b, Location loc,
                       RingPosition position) const;
  /// Waits until `position`'s stage is filled (its `full` mbarrier has
  /// completed that phase), then converges the warp again: each thread
  /// leaves the wait on its own, and warp-wide instructions (wgmma is
  /// .sync.aligned) follow.
  void waitFull(OpBuilder &b, Location loc, RingPosition position) const;
  /// The filling thread waits until the readers have given `stage` back
  /// (its `empty` mbarrier has completed phase `parity`).
  void waitEmpty(OpBuilder &b, Location loc, Value stage, Value parity) const;
  /// The filling thread arrives on `stage`'s `full` mbarrier, which then
  /// waits for `bytes` more from the copies.
  void expectBytes(OpBuilder &b, Location loc, Value stage,
                   int64_t bytes) const;
  /// The index of `stage`'s `empty` mbarrier.
  Value getEmpty(OpBuilder &b, Location loc, Value stage) const;
  /// Arrives on mbarrier `index` of this block; of the other block of the
  /// cluster pair (`peerRank`), released at CTA scope.
  void arrive(OpBuilder &b, Location loc, Value index) const;
  void arriveOnPeer(OpBuilder &b, Location loc, Value index,
                    Value peerRank) const;
  /// Invalidates every mbarrier of the ring (before it is set up anew).
  void invalidate(OpBuilder &b, Location loc) const;

private:
  /// A shared-memory pointer to mbarrier `index`.
  Value getPointer(OpBuilder &b, Location loc, Value index) const;

  const KernelContext *k = nullptr;
  Value barriers;
  int64_t stages = 0;
};

//===----------------------------------------------------------------------===//
// Filling a stage (TmaCopies.cpp)
//===----------------------------------------------------------------------===//

/// The thread that fills a TMA pipeline's stages: the bulk tensor copies of
/// every producer of `loop` for one iteration, completing on the stage's
/// `full` mbarrier.
class TmaStageFiller {
public:
  TmaStageFiller(const KernelContext &k, PipelinedOp loop,
                 const PipelinePlan &plan, const StageRing &ring);

  /// Fills `stage` with `iteration`'s tiles where `go` holds (always when
  /// null), after waiting for the stage's readers unless `emptyParity` is
  /// null. `outside` maps the values from outside the loop that the tiles'
  /// origins use (a producer warpgroup computes them itself).
  void fill(OpBuilder &b, Value iteration, Value stage, Value emptyParity,
            Value go, const IRMapping &outside = IRMapping()) const;

private:
  /// The loads of `copy`'s tile into `stage` from `coordinates`, its
  /// tensor map's (innermost first) with the first panel's column.
  void load(OpBuilder &b, Location loc, CopyOp copy, Value stage,
            ArrayRef<Value> coordinates) const;

  const KernelContext &k;
  PipelinedOp loop;
  const PipelinePlan &plan;
  StageRing ring;
  Location loc;
  /// The bytes the producers move into one stage.
  int64_t stageBytes = 0;
};

//===----------------------------------------------------------------------===//
// Warp specialization (WarpSpecialization.cpp)
//===----------------------------------------------------------------------===//

/// The producer warpgroup's loop filling `loop`'s stages (the kernel's
/// warp-specialized loop), before `k.hopper.producerEnd`: one tile's iterations,
/// or every tile's of a persistent kernel.
LogicalResult buildTmaProducer(KernelContext &k, PipelinedOp loop,
                               const PipelinePlan &plan);

} // namespace mlir::tile::gpu_lowering

#endif // TILE_LIB_CONVERSION_TILETOGPU_STRATEGIES_TMA_H
