//===- Threads.cpp - A block's threads as an OpenMP team ------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Threads.h"

#include "tile/Dialect/Tile/Utils/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"

using namespace mlir;
using namespace mlir::tile;

bool cpu_lowering::readsThreadIds(KernelOp kernel) {
  return kernel.walk([](ThreadIdOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// Whether the team runs `op` in its first thread alone: a tile op that the
/// block runs together (buffers are made before the team starts, and a
/// pipelined loop runs in every thread, its tile ops one by one), or a
/// print of a buffer by one thread.
static bool isCollective(Operation &op) {
  if (auto print = dyn_cast<PrintOp>(op))
    return print.isPrintedByOneThread();
  return op.hasTrait<BlockLevel>() &&
         !isa<AllocSharedOp, FragmentOp, PipelinedOp>(op);
}

/// Collects, in program order, the thread ops and the collective ops of
/// `block` and of the regions of its other ops.
static void collectThreadOps(Block &block,
                             SmallVectorImpl<Operation *> &threadOps,
                             SmallVectorImpl<Operation *> &collectives) {
  for (Operation &op : block) {
    if (isa<ThreadIdOp, BarrierOp>(op)) {
      threadOps.push_back(&op);
      continue;
    }
    if (isCollective(op)) {
      collectives.push_back(&op);
      continue;
    }
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        collectThreadOps(nested, threadOps, collectives);
  }
}

void cpu_lowering::lowerThreadOps(KernelOp kernel, Value thread,
                                  RewriterBase &rewriter) {
  SmallVector<Operation *> threadOps, collectives;
  collectThreadOps(kernel.getBody().front(), threadOps, collectives);
  for (Operation *op : threadOps) {
    rewriter.setInsertionPoint(op);
    if (isa<BarrierOp>(op)) {
      rewriter.replaceOpWithNewOp<omp::BarrierOp>(op);
      continue;
    }
    rewriter.replaceOp(op, buildThreadIndex(rewriter, op->getLoc(),
                                            cast<ThreadIdOp>(op).getUnit(),
                                            thread, kCpuWarpSize));
  }
  // barrier; masked { op }; barrier
  for (Operation *op : collectives) {
    Location loc = op->getLoc();
    rewriter.setInsertionPoint(op);
    omp::BarrierOp::create(rewriter, loc);
    auto masked = omp::MaskedOp::create(rewriter, loc, Value());
    rewriter.createBlock(&masked.getRegion());
    Operation *end = omp::TerminatorOp::create(rewriter, loc);
    rewriter.moveOpBefore(op, end);
    rewriter.setInsertionPointAfter(masked);
    omp::BarrierOp::create(rewriter, loc);
  }
}
