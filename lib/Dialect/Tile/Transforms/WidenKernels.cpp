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

int64_t mlir::tile::getFragmentRegisters(
    KernelOp kernel, llvm::function_ref<int64_t(FragmentOp)> scale) {
  int64_t bits = 0;
  kernel.walk([&](FragmentOp op) {
    FragmentType type = op.getType();
    Type element = type.getElementType();
    int64_t width =
        element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 32;
    bits += type.getNumElements() * width * (scale ? scale(op) : 1);
  });
  return llvm::divideCeil(bits, 32);
}

/// Whether the user wrote what fixes `kernel`'s threads: a layout of how
/// they share a fragment or a parallel loop (layout inference has not run
/// yet), a read of a thread's index, a thread range or a barrier's
/// arrival count.
static bool hasWrittenThreads(KernelOp kernel) {
  if (namesThreads(kernel))
    return true;
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

/// Whether `kernel` computes a gemm operand in a tile.parallel on every
/// iteration of a pipelined loop (weights dequantized between the copies
/// and a gemm of at least 128 rows): the conversion, which the loop's
/// consumer threads run between gemms, bounds it, and a second warpgroup
/// shares it (on an H200 an int8 and an int4 dequantizing GEMM at 128 x 128
/// x 64: 0.75x -> 0.87x and 0.97x -> 1.11x their torch counterparts).
static bool convertsGemmOperandsInLoops(KernelOp kernel) {
  return kernel
      .walk([](PipelinedOp loop) {
        Block &body = loop.getBody().front();
        for (GemmOp gemm : body.getOps<GemmOp>()) {
          if (gemm.getM() < 128)
            continue;
          for (ParallelOp parallel : body.getOps<ParallelOp>()) {
            bool writesOperand =
                parallel
                    .walk([&](StoreOp store) {
                      Value buffer = store.getBuffer();
                      return buffer == gemm.getA() || buffer == gemm.getB()
                                 ? WalkResult::interrupt()
                                 : WalkResult::advance();
                    })
                    .wasInterrupted();
            if (writesOperand)
              return WalkResult::interrupt();
          }
        }
        return WalkResult::advance();
      })
      .wasInterrupted();
}

namespace {
struct TileWidenKernelsPass
    : public tile::impl::TileWidenKernelsBase<TileWidenKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Collected first: trying a width clones a kernel beside it.
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    for (KernelOp kernel : kernels) {
      TargetAttr attr = findTargetAttr(kernel);
      if (!attr)
        continue;
      TargetInfo target = attr.getInfo();
      if (target.isCPU() || hasWrittenThreads(kernel))
        continue;
      int64_t limit = std::min<int64_t>(maxThreads, target.maxThreadsPerBlock);
      int64_t budget = target.registersPerThread * 3 / 4;
      int64_t threads = kernel.getThreadsAttr().getInt();
      // Whole warps only: an odd count is the user's experiment.
      if (threads % target.warpSize != 0)
        continue;
      int64_t registers = getFragmentRegisters(kernel);
      int64_t widened = threads;
      while (llvm::divideCeilSigned(registers, widened) > budget &&
             widened * 2 <= limit)
        widened *= 2;
      // One warpgroup converting gemm operands gets a second (wgmma).
      if (widened == threads && threads == target.warpgroupSize &&
          target.hasWgmma() && threads * 2 <= limit &&
          convertsGemmOperandsInLoops(kernel))
        widened = threads * 2;
      if (widened != threads && hasLayoutsAt(kernel, target, widened))
        kernel.setThreadsAttr(
            IntegerAttr::get(kernel.getThreadsAttr().getType(), widened));
    }
  }
};
} // namespace
