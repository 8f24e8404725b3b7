//===- TmaCopies.cpp - TMA loads of a stage, TMA stores of a tile ---------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The kernel's side of TMA: one thread issues bulk tensor copies through
// the tensor maps the host encoded (TensorMaps.cpp). Loads fill a
// pipeline's stage, one box per swizzle panel of each producer's tile, and
// complete on the stage's `full` mbarrier; with `tma-multicast`, the two
// blocks of a cluster pair load half of a shared tile each, for both.
// Stores write a persistent kernel's output tile from its staged scratch
// and are left in flight until the scratch is needed again.
//
//===----------------------------------------------------------------------===//

#include "PipelineStrategies.h"
#include "Tma.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

//===----------------------------------------------------------------------===//
// Loads: filling a stage
//===----------------------------------------------------------------------===//

TmaStageFiller::TmaStageFiller(const KernelContext &k, PipelinedOp loop,
                               const PipelinePlan &plan,
                               const StageRing &ring)
    : k(k), loop(loop), plan(plan), ring(ring), loc(loop.getLoc()) {
  for (CopyOp copy : plan.producers) {
    const SharedBufferPlan &buffer = k.plan.shared.find(copy.getDest())->second;
    stageBytes +=
        buffer.stageElements * (buffer.type.getElementTypeBitWidth() / 8);
  }
}

/// The coordinates of `copy`'s tile at `origin` (its offsets, resolved) in
/// its tensor map, innermost first: through a slice of a higher-rank
/// tensor (the map describes more dims than the tile has), the dropped
/// dims' offsets too.
static SmallVector<Value>
getTmaCoordinates(CopyOp copy, ArrayRef<Value> origin,
                  function_ref<Value(OpFoldResult)> resolve) {
  SmallVector<Value> coordinates{origin[1]};
  if (auto view = copy.getSource().getDefiningOp<memref::SubViewOp>();
      view && view.getSourceType().getRank() > 2) {
    int64_t rank = view.getSourceType().getRank();
    int64_t rowDim = getTmaRowDim(view);
    for (int64_t d = rank - 2; d >= 0; --d)
      coordinates.push_back(d == rowDim ? origin[0]
                                        : resolve(view.getMixedOffsets()[d]));
  } else {
    coordinates.push_back(origin[0]);
  }
  return coordinates;
}

/// Box `p` of `copy`'s tile (a swizzle panel) through its tensor map, from
/// `coordinates` (getTmaCoordinates) into shared memory at byte `start` of
/// the plan (plus the box's place), completing on mbarrier `index` of
/// `barriers`; with `mask`, to the same place in the blocks of the cluster
/// it names.
static void loadTmaBox(const KernelContext &k, OpBuilder &b, Location loc,
                       CopyOp copy, Value start, ArrayRef<Value> coordinates,
                       Value barriers, Value index, int64_t p, Value mask) {
  auto descriptorType = cast<nvgpu::TensorMapDescriptorType>(
      k.hopper.tensorMaps.lookup(copy).second);
  const SharedBufferPlan &buffer = k.plan.shared.find(copy.getDest())->second;
  TmaBox box = *getTmaBox(buffer);
  int64_t bytes = buffer.type.getElementTypeBitWidth() / 8;
  // The box: the tile's rows, a panel's columns, one along dropped dims.
  MemRefType boxType = descriptorType.getTensor();
  Value at = arith::AddIOp::create(
      b, loc, start, k.constant(b, loc, p * box.rows * box.columns * bytes));
  Value dst =
      memref::ViewOp::create(b, loc, boxType, k.dynamicShared,
                             k.sharedByteOffset(b, loc, at), ValueRange());
  SmallVector<Value> panel(coordinates);
  panel[0] = arith::AddIOp::create(b, loc, coordinates[0],
                                   k.constant(b, loc, p * box.columns));
  Value pointer = k.hopper.tensorMaps.lookup(copy).first;
  Value descriptor =
      UnrealizedConversionCastOp::create(b, loc, descriptorType, pointer)
          .getResult(0);
  nvgpu::TmaAsyncLoadOp::create(b, loc, dst, barriers, descriptor, panel, index,
                                mask, /*predicate=*/Value());
}

void TmaStageFiller::fill(OpBuilder &b, Value iteration, Value stage,
                          Value emptyParity, Value go,
                          const IRMapping &outside) const {
  PipelinedOp loop = this->loop; // Its accessors are not const.
  auto body = [&](OpBuilder &then) {
    if (emptyParity)
      ring.waitEmpty(then, loc, stage, emptyParity);
    ring.expectBytes(then, loc, stage, stageBytes);
    for (CopyOp copy : plan.producers) {
      // The tile's origin in this iteration.
      // (Under `go`: the iteration is valid.)
      IRMapping mapping = outside;
      cloneOffsetSlice(k.plan, then, loop, copy.getOffsets(), iteration,
                       Value(), mapping);
      auto resolve = [&](OpFoldResult offset) -> Value {
        if (auto value = dyn_cast<Value>(offset))
          return mapping.lookupOrDefault(value);
        return k.constant(then, loc, *getConstantIntValue(offset));
      };
      SmallVector<Value> origin =
          llvm::map_to_vector(copy.getMixedOffsets(), resolve);
      load(then, loc, copy, stage, getTmaCoordinates(copy, origin, resolve));
    }
  };
  buildGuarded(b, loc, go, body);
}

void TmaStageFiller::load(OpBuilder &b, Location loc, CopyOp copy, Value stage,
                          ArrayRef<Value> coordinates) const {
  const SharedBufferPlan &buffer = k.plan.shared.find(copy.getDest())->second;
  TmaBox box = *getTmaBox(buffer);
  int64_t bytes = buffer.type.getElementTypeBitWidth() / 8;
  Value bufferStart = k.constant(b, loc, buffer.offset);
  Value stageStart = arith::AddIOp::create(
      b, loc, bufferStart,
      arith::MulIOp::create(b, loc, stage,
                            k.constant(b, loc, buffer.stageElements * bytes)));
  // Box p: panel p of the stage's tile, through the tensor map; with
  // `mask`, to the same place in both blocks of the cluster pair.
  auto loadBox = [&](OpBuilder &lb, Location ll, int64_t p, Value mask) {
    loadTmaBox(k, lb, ll, copy, stageStart, coordinates, ring.getBarriers(),
               stage, p, mask);
  };
  auto loadAll = [&](OpBuilder &lb, Location ll) {
    for (int64_t p = 0; p < box.loads; ++p)
      loadBox(lb, ll, p, Value());
  };
  if (!k.hopper.multicast || !llvm::is_contained(plan.multicast, copy))
    return loadAll(b, loc);
  // A shared tile: when the pair multicasts, each block loads every other
  // box for both (its rank picks which).
  auto shared = scf::IfOp::create(b, loc, k.hopper.multicast,
                                  /*withElseRegion=*/true);
  OpBuilder alone = OpBuilder::atBlockTerminator(shared.elseBlock());
  loadAll(alone, loc);
  OpBuilder pair = OpBuilder::atBlockTerminator(shared.thenBlock());
  Value both = arith::ConstantIntOp::create(pair, loc, pair.getI16Type(), 3);
  for (int64_t p = 0; p < box.loads; ++p) {
    Value mine = arith::CmpIOp::create(
        pair, loc, arith::CmpIPredicate::eq, k.hopper.clusterRank,
        arith::ConstantIntOp::create(pair, loc, pair.getI32Type(), p % 2));
    buildGuarded(pair, loc, mine,
                 [&](OpBuilder &mb) { loadBox(mb, loc, p, both); });
  }
}

void mlir::tile::gpu_lowering::emitTmaBarrierLoad(const KernelContext &k,
                                                  OpBuilder &b, Location loc,
                                                  CopyOp copy) {
  Operation *planned = k.getPlanned(copy);
  CopyOp plannedCopy = cast<CopyOp>(planned);
  const SharedBufferPlan &buffer =
      k.plan.shared.find(plannedCopy.getDest())->second;
  TmaBox box = *getTmaBox(buffer);
  Value barriers = k.barrierGroups.lookup(copy.getBarrier());
  Value index = copy.getBarrierIndex();
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       k.threadId, k.constant(b, loc, 0));
  buildGuarded(b, loc, leader, [&](OpBuilder &then) {
    // The barrier's phase waits for the tile's bytes too (TileLang's
    // expect_tx: the threads' own arrivals stay theirs).
    int64_t bytes =
        buffer.stageElements * (buffer.type.getElementTypeBitWidth() / 8);
    NVVM::MBarrierExpectTxOp::create(
        then, loc, getMBarrierPointer(then, loc, barriers, index),
        arith::ConstantIntOp::create(then, loc, then.getI32Type(), bytes));
    auto resolve = [&](OpFoldResult offset) {
      return getValueOrCreateConstantIndexOp(then, loc, offset);
    };
    SmallVector<Value> origin =
        llvm::map_to_vector(copy.getMixedOffsets(), resolve);
    SmallVector<Value> coordinates = getTmaCoordinates(copy, origin, resolve);
    Value start = k.constant(then, loc, buffer.offset);
    for (int64_t p = 0; p < box.loads; ++p)
      loadTmaBox(k, then, loc, plannedCopy, start, coordinates, barriers, index,
                 p, Value());
  });
}

//===----------------------------------------------------------------------===//
// Stores: a persistent kernel's output tiles
//===----------------------------------------------------------------------===//

void mlir::tile::gpu_lowering::emitTmaStores(const KernelContext &k,
                                             OpBuilder &b, Location loc,
                                             CopyOp copy, int64_t scratchOffset,
                                             ValueRange origin) {
  CopyOp planned = cast<CopyOp>(k.getPlanned(copy));
  auto mapType = getTmaStoreMapType(planned);
  MemRefType boxType = mapType.getTensor();
  int64_t rows = boxType.getShape()[0], panel = boxType.getShape()[1];
  int64_t columns = cast<ShapedType>(copy.getTile().getType()).getShape()[1];
  int64_t boxBytes = rows * panel * boxType.getElementTypeBitWidth() / 8;
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       k.threadId, k.constant(b, loc, 0));
  buildGuarded(b, loc, leader, [&](OpBuilder &then) {
    Value descriptor =
        UnrealizedConversionCastOp::create(then, loc, mapType,
                                           k.hopper.tensorMaps.lookup(planned).first)
            .getResult(0);
    for (int64_t p = 0; p < columns / panel; ++p) {
      Value box = memref::ViewOp::create(
          then, loc, boxType, k.dynamicShared,
          k.sharedByteOffset(
              then, loc, k.constant(then, loc, scratchOffset + p * boxBytes)),
          ValueRange());
      // Coordinates innermost first; TMA drops what falls outside the
      // tensor.
      Value column = arith::AddIOp::create(then, loc, origin[1],
                                           k.constant(then, loc, p * panel));
      nvgpu::TmaAsyncStoreOp::create(then, loc, box, descriptor,
                                     ValueRange{column, origin[0]},
                                     /*predicate=*/Value());
    }
    // Left in flight: waitForTmaStoreReads before the scratch is written
    // again and at the kernel's end.
    NVVM::CpAsyncBulkCommitGroupOp::create(then, loc);
  });
}

void mlir::tile::gpu_lowering::waitForTmaStoreReads(const KernelContext &k,
                                                    OpBuilder &b, Location loc,
                                                    Value threadId) {
  Value leader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                       threadId, k.constant(b, loc, 0));
  buildGuarded(b, loc, leader, [&](OpBuilder &then) {
    NVVM::CpAsyncBulkWaitGroupOp::create(then, loc, 0, then.getUnitAttr());
  });
}
