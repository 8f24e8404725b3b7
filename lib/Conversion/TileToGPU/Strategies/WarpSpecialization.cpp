//===- WarpSpecialization.cpp - Consumer warps and a producer warpgroup ---===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A warp-specialized kernel (the plan's `warpSpecialized` loop, sm_90a)
// splits its block: the kernel's threads are the consumers, which run the
// loop's TMA version without filling its stages (TmaPipeline.cpp), and a
// producer warpgroup of its own follows them, whose first thread fills
// every stage in turn. The split sets up the loop's stage ring for the
// whole block (the cluster's, where two blocks multicast) and moves the
// registers from the producer to the consumers (setmaxnreg). In a
// persistent kernel the producer walks the consumers' tiles too.
//
//===----------------------------------------------------------------------===//

#include "PipelineStrategies.h"
#include "Tma.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

Operation *mlir::tile::gpu_lowering::splitWarpSpecialized(KernelContext &k,
                                                          OpBuilder &b,
                                                          Location loc) {
  const PipelinePlan &pipeline =
      k.plan.pipelines.find(k.plan.warpSpecialized)->second;
  bool clustered = k.plan.isClustered();
  // Consumers give a stage back one arrival per warp (and, multicasting,
  // one on the other block's barrier too).
  int64_t warps = k.threads / k.target.warpSize;
  Value emptyCount = k.constant(b, loc, warps);
  if (clustered) {
    Type i32 = b.getI32Type();
    Value clusterDim = NVVM::ClusterDim::create(b, loc, i32);
    k.hopper.multicast =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, clusterDim,
                              arith::ConstantIntOp::create(b, loc, i32, 2));
    k.hopper.clusterRank = NVVM::ClusterId::create(b, loc, i32);
    k.hopper.peerRank = arith::XOrIOp::create(
        b, loc, k.hopper.clusterRank, arith::ConstantIntOp::create(b, loc, i32, 1));
    emptyCount = arith::SelectOp::create(
        b, loc, k.hopper.multicast, k.constant(b, loc, 2 * warps),
        emptyCount);
  }
  k.hopper.producerBarriers =
      StageRing::create(k, b, loc, pipeline.stages, emptyCount,
                        /*wholeBlock=*/true, /*cluster=*/clustered)
          .getBarriers();
  if (k.plan.persistent) {
    // The consumers' first tile starts where a lone loop would: reading
    // stage 0, giving back stage s - 1 (none before the first), phases 0.
    {
      // In the kernel's entry block, where LLVM promotes it to registers.
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(b.getInsertionBlock());
      k.hopper.pipelineState = memref::AllocaOp::create(
          b, loc, MemRefType::get({4}, b.getIndexType()));
    }
    // Named: an ArrayRef of a braced list in the range would outlive the
    // list (C++17 ends its life before the loop; GCC stored garbage).
    int64_t initial[] = {0, 0, pipeline.stages - 1, 0};
    for (auto [i, v] : llvm::enumerate(initial)) {
      Value init = k.constant(b, loc, v);
      memref::StoreOp::create(b, loc, init, k.hopper.pipelineState,
                              ValueRange{k.constant(b, loc, i)});
    }
  }
  // Registers: the register file for the one block; the launch gives each
  // thread an equal share (8-register steps), the producer keeps 24 and
  // the consumers take what is left, up to 240 (setmaxnreg's range).
  constexpr int64_t kProducerRegisters = 24, kMaxRegisters = 240;
  int64_t registers = k.target.registerFileSize;
  int64_t atLaunch = registers / k.plan.getLaunchThreads() / 8 * 8;
  int64_t consumer = std::min<int64_t>(
      kMaxRegisters,
      (registers - k.plan.getProducerThreads() * kProducerRegisters) /
          k.threads / 8 * 8);
  Value isConsumer = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           k.threadId,
                                           k.constant(b, loc, k.threads));
  auto split = scf::IfOp::create(b, loc, isConsumer, /*withElseRegion=*/true);
  OpBuilder producer(split.elseBlock()->getTerminator());
  if (atLaunch > kProducerRegisters)
    NVVM::SetMaxRegisterOp::create(producer, loc, kProducerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
  OpBuilder consumers(split.thenBlock()->getTerminator());
  if (consumer > atLaunch)
    NVVM::SetMaxRegisterOp::create(consumers, loc, consumer,
                                   NVVM::SetMaxRegisterAction::increase);
  k.hopper.producerEnd = split.elseBlock()->getTerminator();
  Operation *consumersEnd = split.thenBlock()->getTerminator();
  if (clustered) {
    // No block leaves while the other may still arrive on its barriers:
    // the consumers wait for the whole cluster at the end (the producer
    // threads arrive as they finish).
    k.hopper.producerEnd = NVVM::ClusterArriveOp::create(producer, loc, UnitAttr());
    consumersEnd =
        NVVM::ClusterArriveOp::create(consumers, loc, consumers.getUnitAttr());
    NVVM::ClusterWaitOp::create(consumers, loc, consumers.getUnitAttr());
  }
  return consumersEnd;
}


/// The producer warpgroup's first thread, while the host found the
/// tensors aligned (the consumers run the TMA version then), computes the
/// loop's bounds and fills every iteration's stage in turn, waiting for the
/// consumers to give it back first (a stage's first wait, on parity 1 of a
/// fresh mbarrier, passes at once).
LogicalResult mlir::tile::gpu_lowering::buildTmaProducer(
    KernelContext &k, PipelinedOp loop, const PipelinePlan &plan) {
  Location loc = loop.getLoc();
  StageRing ring(k, k.hopper.producerBarriers, plan.stages);
  TmaStageFiller filler(k, loop, plan, ring);
  OpBuilder b(k.hopper.producerEnd);
  Value go = arith::AndIOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                            k.launchThreadId, k.constant(b, loc, k.threads)),
      k.hopper.tmaReady.lookup(loop));
  auto guard = scf::IfOp::create(b, loc, go, /*withElseRegion=*/false);
  b.setInsertionPoint(guard.thenBlock()->getTerminator());
  FailureOr<SetVector<Operation *>> setup =
      getProducerSetup(k.plan, loop, plan.producers, *loop->getParentRegion());
  if (failed(setup))
    return loop.emitOpError("internal error: the producer warpgroup cannot "
                            "compute the loop's tiles");
  // One tile's loop, from ring position (stage, phase); returns the
  // position after it.
  auto fillTile = [&](OpBuilder &tb, IRMapping &outside,
                      ValueRange position) -> ValueRange {
    for (Operation *op : *setup)
      tb.clone(*op, outside);
    return scf::ForOp::create(
               tb, loc, outside.lookupOrDefault(loop.getLower()),
               outside.lookupOrDefault(loop.getUpper()),
               outside.lookupOrDefault(loop.getStep()), position,
               [&](OpBuilder &nb, Location l, Value iv, ValueRange carried) {
                 RingPosition at{carried[0], carried[1]};
                 Value emptyParity = arith::XOrIOp::create(
                     nb, l, at.phase,
                     arith::ConstantIntOp::create(nb, l, nb.getI1Type(), true));
                 filler.fill(nb, iv, at.stage, emptyParity, /*go=*/Value(),
                             outside);
                 RingPosition next = ring.advance(nb, l, at);
                 scf::YieldOp::create(nb, l, ValueRange{next.stage, next.phase});
               })
        .getResults();
  };
  SmallVector<Value> start{
      k.constant(b, loc, 0),
      arith::ConstantIntOp::create(b, loc, b.getI1Type(), false)};
  auto tiles = cast_if_present<scf::ForOp>(k.tileLoop);
  if (!tiles) {
    IRMapping outside;
    fillTile(b, outside, start);
    return success();
  }
  // Persistent: the consumers' tiles in their order, the ring going on
  // from one tile to the next.
  scf::ForOp::create(
      b, loc, tiles.getLowerBound(), tiles.getUpperBound(), tiles.getStep(),
      start, [&](OpBuilder &tb, Location l, Value tile, ValueRange carried) {
        IRMapping outside;
        outside.map(tiles.getInductionVar(), tile);
        scf::YieldOp::create(tb, l, fillTile(tb, outside, carried));
      });
  return success();
}
