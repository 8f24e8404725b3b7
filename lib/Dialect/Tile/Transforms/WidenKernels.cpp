//===- WidenKernels.cpp - tile-widen-kernels ------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Transforms/Transforms.h"
#include "tile/Target/Target.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILEWIDENKERNELS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// The 32-bit registers per thread that `kernel`'s fragments take when
/// `threads` threads share each evenly.
static int64_t getFragmentRegisters(KernelOp kernel, int64_t threads) {
  int64_t bits = 0;
  kernel.walk([&](FragmentOp op) {
    FragmentType type = op.getType();
    Type element = type.getElementType();
    int64_t width =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
    bits += type.getNumElements() * width;
  });
  return llvm::divideCeil(llvm::divideCeil(bits, 32), threads);
}

/// Whether the user wrote a layout that fixes how `kernel`'s threads share
/// a fragment or a parallel loop (layout inference has not run yet).
static bool hasWrittenThreadLayouts(KernelOp kernel) {
  return kernel
      .walk([](Operation *op) {
        if (auto fragment = dyn_cast<FragmentOp>(op);
            fragment && fragment.getLayoutAttr())
          return WalkResult::interrupt();
        if (auto loop = dyn_cast<ParallelOp>(op); loop && loop.getLayoutAttr())
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
}

/// Whether layout inference finds layouts for `kernel` at `threads` threads
/// (tried on a copy, its diagnostics dropped): a kernel written for its own
/// thread count, which at another one has conflicting layouts, keeps it.
static bool hasLayoutsAt(KernelOp kernel, const TargetInfo &target,
                         int64_t threads) {
  OpBuilder b(kernel);
  b.setInsertionPointAfter(kernel);
  auto copy = cast<KernelOp>(b.clone(*kernel));
  copy.setThreadsAttr(
      IntegerAttr::get(copy.getThreadsAttr().getType(), threads));
  ScopedDiagnosticHandler quiet(kernel.getContext(),
                                [](Diagnostic &) { return success(); });
  bool found = succeeded(inferLayouts(copy, target));
  copy.erase();
  return found;
}

/// Whether an ancestor of `op` names the target.
static bool hasTarget(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp())
    if (parent->hasAttr(TargetAttr::getAttrName()))
      return true;
  return false;
}

namespace {
struct TileWidenKernelsPass
    : public tile::impl::TileWidenKernelsBase<TileWidenKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation()->walk([&](KernelOp kernel) {
      if (!hasTarget(kernel))
        return; // tile-infer-layouts says it needs one
      FailureOr<TargetInfo> target = getTarget(kernel);
      if (failed(target) || target->isCPU() || hasWrittenThreadLayouts(kernel))
        return;
      int64_t limit = std::min<int64_t>(maxThreads, target->maxThreadsPerBlock);
      int64_t budget = target->registersPerThread * 3 / 4;
      int64_t threads = kernel.getThreadsAttr().getInt();
      // Whole warps only: an odd count is the user's experiment.
      if (threads % target->warpSize != 0)
        return;
      int64_t widened = threads;
      while (getFragmentRegisters(kernel, widened) > budget &&
             widened * 2 <= limit)
        widened *= 2;
      if (widened != threads && hasLayoutsAt(kernel, *target, widened))
        kernel.setThreadsAttr(
            IntegerAttr::get(kernel.getThreadsAttr().getType(), widened));
    });
  }
};
} // namespace
