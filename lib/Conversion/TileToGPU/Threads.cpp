//===- Threads.cpp - Lowering tile.thread_id and tile.barrier -------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A thread's index is the kernel's thread id (the consumers' in a
// warp-specialized kernel, whose producer warpgroup runs none of the
// user's code), its lane and warp for the target's warp size; a barrier is
// the kernel's (a named barrier of the consumers where a producer
// warpgroup does not join, or of a thread range's threads). A thread
// range is a branch on the thread id whose tile ops are lowered for the
// range's threads; the kernel's own barriers (tile.alloc_barrier) are the
// target's (TargetCodegen: mbarriers on NVIDIA).
//
//===----------------------------------------------------------------------===//

#include "GpuLowering.h"
#include "KernelContext.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

static LogicalResult lowerThreadId(const KernelContext &k,
                                   PatternRewriter &rewriter, ThreadIdOp op) {
  rewriter.replaceOp(op, buildThreadIndex(rewriter, op.getLoc(), op.getUnit(),
                                          k.blockThreadId, k.target.warpSize));
  return success();
}

void mlir::tile::gpu_lowering::createBarrierGroup(KernelContext &k,
                                                  OpBuilder &b,
                                                  AllocBarrierOp op) {
  Location loc = op.getLoc();
  ArrayRef<int64_t> counts = op.getArriveCounts();
  Value group = k.codegen.createBarrierGroup(b, loc, counts.size());
  // Thread 0 initializes them once every thread is done with them (a
  // persistent kernel makes them again for each tile); the others see them
  // after the second barrier.
  gpu::BarrierOp::create(b, loc);
  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      k.blockThreadId, k.constant(b, loc, 0));
  scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location l) {
    for (auto [i, count] : llvm::enumerate(counts))
      k.codegen.initBarrier(then, l, group, k.constant(then, l, i),
                            k.constant(then, l, count));
    // TMA (tile.copy with a barrier) signals them through the async proxy.
    if (k.target.has(Feature::Tma))
      k.codegen.fenceSharedForAsyncProxy(then, l);
    scf::YieldOp::create(then, l);
  });
  gpu::BarrierOp::create(b, loc);
  k.barrierGroups[op.getResult()] = group;
}

static LogicalResult lowerBarrierArrive(const KernelContext &k,
                                        PatternRewriter &rewriter,
                                        BarrierArriveOp op) {
  k.codegen.arriveAtBarrier(rewriter, op.getLoc(),
                            k.barrierGroups.lookup(op.getBarrier()),
                            op.getIndex());
  rewriter.eraseOp(op);
  return success();
}

static LogicalResult lowerBarrierWait(const KernelContext &k,
                                      PatternRewriter &rewriter,
                                      BarrierWaitOp op) {
  Location loc = op.getLoc();
  k.codegen.waitForBarrier(
      rewriter, loc, k.target, k.barrierGroups.lookup(op.getBarrier()),
      op.getIndex(), buildLowBit(rewriter, loc, op.getParity()));
  rewriter.eraseOp(op);
  return success();
}

namespace {
/// A thread range: its body under `if (begin <= tid < end)`, lowered with
/// the range's threads as the block's (thread ids from `begin`, barriers
/// named for the range).
struct ThreadRangeLowering
    : public GpuLoweringOpInterface::ExternalModel<ThreadRangeLowering,
                                                   ThreadRangeOp> {
  LogicalResult lower(Operation *op, KernelContext &k,
                      PatternRewriter &rewriter) const {
    auto range = cast<ThreadRangeOp>(op);
    Location loc = range.getLoc();
    int64_t begin = range.getBegin(), end = range.getEnd();
    std::pair<int64_t, int64_t> span{begin, end};
    int64_t barrierId = 0;
    if (begin != 0 || end != k.plan.threads) {
      auto [it, added] = k.rangeBarrierIds.try_emplace(
          span, static_cast<int64_t>(k.rangeBarrierIds.size()) + 1);
      barrierId = it->second;
      // Barrier 0 is the block's; the hardware has 16.
      if (barrierId > 15)
        return range.emitOpError("is one of more than 15 different thread "
                                 "ranges, which need a named barrier each");
    }
    OpBuilder &b = rewriter;
    b.setInsertionPoint(range);
    Value tid = k.blockThreadId;
    Value inside;
    if (begin != 0)
      inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, tid,
                                     k.constant(b, loc, begin));
    if (end != k.plan.threads) {
      Value below = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                          tid, k.constant(b, loc, end));
      inside = inside ? arith::AndIOp::create(b, loc, inside, below) : below;
    }
    // (A range of the whole block is a branch always taken.)
    if (!inside)
      inside = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    auto branch = scf::IfOp::create(b, loc, inside, /*withElse=*/false);
    Block *body = branch.thenBlock();
    rewriter.inlineBlockBefore(&range.getBody().front(), body->getTerminator());
    rewriter.eraseOp(range);
    // The range's threads are the block while its body is lowered.
    int64_t threads = k.threads, id = k.rangeBarrierId;
    Value threadId = k.threadId;
    b.setInsertionPointToStart(body);
    k.threads = end - begin;
    k.rangeBarrierId = barrierId;
    if (begin != 0)
      k.threadId =
          arith::SubIOp::create(b, loc, tid, k.constant(b, loc, begin));
    LogicalResult status = k.lowerBlock(*body, rewriter);
    k.threads = threads;
    k.rangeBarrierId = id;
    k.threadId = threadId;
    return status;
  }
};
} // namespace

static LogicalResult lowerBarrier(const KernelContext &k,
                                  PatternRewriter &rewriter, BarrierOp op) {
  k.barrier(rewriter, op.getLoc());
  rewriter.eraseOp(op);
  return success();
}

void mlir::tile::gpu_lowering::attachThreadLowerings(MLIRContext *context) {
  ThreadIdOp::attachInterface<LowerWith<ThreadIdOp, lowerThreadId>>(*context);
  BarrierOp::attachInterface<LowerWith<BarrierOp, lowerBarrier>>(*context);
  BarrierArriveOp::attachInterface<
      LowerWith<BarrierArriveOp, lowerBarrierArrive>>(*context);
  BarrierWaitOp::attachInterface<LowerWith<BarrierWaitOp, lowerBarrierWait>>(
      *context);
  ThreadRangeOp::attachInterface<ThreadRangeLowering>(*context);
}
