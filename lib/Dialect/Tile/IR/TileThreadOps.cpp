//===- TileThreadOps.cpp - Thread ranges and barriers ---------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.thread_range (a region some of the block's threads run: TileLang's
// T.ws) and the barriers threads hand work over with: tile.alloc_barrier,
// tile.barrier_arrive and tile.barrier_wait. tile.thread_id, tile.barrier
// and tile.fence need no code of their own beyond ODS and TileDebugOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/IR/TileOps.h"

#include "TileOpVerification.h"

using namespace mlir;
using namespace mlir::tile;

/// NVIDIA's mbarriers count up to 2^20 - 1 arrivals.
static constexpr int64_t kMaxArriveCount = (int64_t(1) << 20) - 1;

int64_t mlir::tile::getThreadCount(Operation *op) {
  if (auto range = dyn_cast<ThreadRangeOp>(op))
    return range.getThreadCount();
  if (auto range = op->getParentOfType<ThreadRangeOp>())
    return range.getThreadCount();
  auto kernel = dyn_cast<KernelOp>(op);
  if (!kernel)
    kernel = op->getParentOfType<KernelOp>();
  return kernel ? static_cast<int64_t>(kernel.getThreads()) : 0;
}

bool mlir::tile::hasThreadRanges(KernelOp kernel) {
  return kernel.walk([](ThreadRangeOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

bool mlir::tile::namesThreads(KernelOp kernel) {
  return kernel
      .walk([](Operation *op) {
        return isa<ThreadIdOp, ThreadRangeOp, AllocBarrierOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

LogicalResult ThreadRangeOp::verify() {
  int64_t begin = getBegin(), end = getEnd();
  if (begin < 0 || end <= begin)
    return emitOpError("needs 0 <= begin < end, got ")
           << begin << " to " << end;
  if (begin % 32 != 0 || end % 32 != 0)
    return emitOpError("bounds must be multiples of 32 (whole warps), got ")
           << begin << " to " << end;
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (kernel && end > static_cast<int64_t>(kernel.getThreads()))
    return emitOpError("ends at thread ") << end << ", but the kernel has "
                                          << kernel.getThreads() << " threads";
  if (auto outer = (*this)->getParentOfType<ThreadRangeOp>()) {
    InFlightDiagnostic diag = emitOpError("cannot be nested in another "
                                          "'tile.thread_range'");
    diag.attachNote(outer.getLoc()) << "the enclosing range";
    return diag;
  }
  return success();
}

LogicalResult AllocBarrierOp::verify() {
  ArrayRef<int64_t> counts = getArriveCounts();
  if (static_cast<int64_t>(counts.size()) != getType().getCount())
    return emitOpError("has ") << counts.size() << " arrival counts for "
                               << getType().getCount() << " barriers";
  for (int64_t count : counts)
    if (count < 1 || count > kMaxArriveCount)
      return emitOpError("arrival counts must be 1 to ")
             << kMaxArriveCount << ", got " << count;
  if (!isa<KernelOp>((*this)->getParentOp()))
    return emitOpError("must be at the kernel's level (directly in its "
                       "'tile.kernel', where every thread makes it)");
  return success();
}

/// Arrivals and waits are the running thread's: in a kernel, not in a
/// tile.parallel body, whose iterations the compiler assigns to threads.
static LogicalResult verifyThreadBarrierOp(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be nested in a 'tile.kernel'");
  if (op->getParentOfType<ParallelOp>())
    return op->emitOpError("cannot be in a 'tile.parallel' body: it is the "
                           "running thread's, and the compiler assigns the "
                           "body's iterations to threads");
  return success();
}

LogicalResult BarrierArriveOp::verify() { return verifyThreadBarrierOp(*this); }

LogicalResult BarrierWaitOp::verify() { return verifyThreadBarrierOp(*this); }

/// The threads `op` runs on: its tile.thread_range's, or the kernel's.
static std::pair<int64_t, int64_t> getThreadSpan(Operation *op) {
  if (auto range = op->getParentOfType<ThreadRangeOp>())
    return {range.getBegin(), range.getEnd()};
  return {0, getThreadCount(op)};
}

LogicalResult mlir::tile::detail::verifyFragmentThreads(KernelOp kernel) {
  if (!hasThreadRanges(kernel))
    return success();
  WalkResult result = kernel.walk([&](FragmentOp fragment) {
    Operation *first = nullptr;
    // Users in program order (a use list is newest first).
    SmallVector<Operation *> users(fragment->getUsers());
    for (Operation *op : llvm::reverse(users)) {
      if (!first)
        first = op;
      if (getThreadSpan(op) == getThreadSpan(first))
        continue;
      InFlightDiagnostic diag = fragment.emitOpError(
          "is used by different threads: a fragment belongs to the threads "
          "of one 'tile.thread_range' (or to the whole block)");
      auto note = [&](Operation *at, StringRef what) {
        auto [begin, end] = getThreadSpan(at);
        diag.attachNote(at->getLoc())
            << what << " threads " << begin << " to " << end;
      };
      note(first, "used here by");
      note(op, "and here by");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}
