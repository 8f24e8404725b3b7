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
// warpgroup does not join).
//
//===----------------------------------------------------------------------===//

#include "GpuLowering.h"
#include "KernelContext.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

static LogicalResult lowerThreadId(const KernelContext &k,
                                   PatternRewriter &rewriter, ThreadIdOp op) {
  rewriter.replaceOp(op, buildThreadIndex(rewriter, op.getLoc(), op.getUnit(),
                                          k.threadId, k.target.warpSize));
  return success();
}

static LogicalResult lowerBarrier(const KernelContext &k,
                                  PatternRewriter &rewriter, BarrierOp op) {
  k.barrier(rewriter, op.getLoc());
  rewriter.eraseOp(op);
  return success();
}

void mlir::tile::gpu_lowering::attachThreadLowerings(MLIRContext *context) {
  ThreadIdOp::attachInterface<LowerWith<ThreadIdOp, lowerThreadId>>(*context);
  BarrierOp::attachInterface<LowerWith<BarrierOp, lowerBarrier>>(*context);
}
