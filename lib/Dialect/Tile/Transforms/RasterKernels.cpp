//===- RasterKernels.cpp - tile-raster-kernels ----------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Transforms/Passes.h"

#include "tile/Dialect/Tile/IR/TileOps.h"
#include "tile/Dialect/Tile/Utils/LoweringUtils.h"
#include "tile/Target/Target.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::tile {
#define GEN_PASS_DEF_TILERASTERKERNELS
#include "tile/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

/// Whether `op` runs in a loop inside `kernel`.
static bool isInLoop(KernelOp kernel, Operation *op) {
  for (Operation *parent = op->getParentOp(); parent != kernel;
       parent = parent->getParentOp())
    if (isa<LoopLikeOpInterface, PipelinedOp>(parent))
      return true;
  return false;
}

/// Whether `kernel` multiplies tiles that its blocks share along both grid
/// dims: a tile.gemm, and loops copying from global memory one tile whose
/// origin follows the first block id only and one that follows the second
/// only (A's rows and B's columns in a GEMM over an (N, M) grid).
static bool sharesTilesAlongBothDims(KernelOp kernel) {
  bool gemm = false;
  unsigned seen = 0;
  kernel.walk([&](Operation *op) {
    if (isa<GemmOp>(op)) {
      gemm = true;
      return;
    }
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy || copy.getGlobal() != copy.getSource() || !isInLoop(kernel, op))
      return;
    unsigned mask = getBlockIdMask(kernel, copy.getOffsets());
    if (mask == 1 || mask == 2)
      seen |= mask;
  });
  return gemm && seen == 3;
}

/// Whether `kernel` holds a loop that runs until a run-time condition: its
/// blocks may wait on one another, counting on the launch order.
static bool hasRuntimeWhile(KernelOp kernel) {
  return kernel.walk([](scf::WhileOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

namespace {
struct TileRasterKernelsPass
    : public tile::impl::TileRasterKernelsBase<TileRasterKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (panel < 0) {
      getOperation()->emitError("tile-raster-kernels: panel must be 0 or "
                                "positive, got ")
          << static_cast<int64_t>(panel);
      return signalPassFailure();
    }
    if (panel == 0)
      return;
    getOperation()->walk([&](KernelOp kernel) {
      TargetAttr target = findTargetAttr(kernel);
      if (!target || target.getInfo().isCPU() || kernel.getRasterAttr() ||
          kernel.getPersistent() || kernel.getGridRank() != 2)
        return;
      int64_t width = kernel.getStaticGrid()[0];
      if (!ShapedType::isDynamic(width) && width <= panel)
        return;
      if (hasRuntimeWhile(kernel) || !sharesTilesAlongBothDims(kernel))
        return;
      kernel.setRasterAttr(
          RasterAttr::get(kernel.getContext(), panel, RasterOrder::Row));
    });
  }
};
} // namespace
