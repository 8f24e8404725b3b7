//===- TileToGPU.cpp - convert-tile-to-gpu --------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/TileToGPU/TileToGPU.h"

#include "KernelLowering.h"
#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTTILETOGPU
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;
using namespace mlir::tile;

LogicalResult mlir::tile::lowerKernelToGPU(RewriterBase &rewriter,
                                           KernelOp kernel,
                                           const TargetInfo &target) {
  return gpu_lowering::KernelLowering(rewriter, kernel, target).run();
}

namespace {
struct ConvertTileToGPUPass
    : public tile::impl::ConvertTileToGPUBase<ConvertTileToGPUPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<TargetInfo> target = TargetInfo::parse(chip);
    if (failed(target) || target->isCPU()) {
      getOperation()->emitError("convert-tile-to-gpu needs a GPU chip, got '")
          << chip << "'; expected one of " << getKnownChips();
      return signalPassFailure();
    }
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    IRRewriter rewriter(&getContext());
    for (KernelOp kernel : kernels)
      if (failed(lowerKernelToGPU(rewriter, kernel, *target)))
        return signalPassFailure();
  }
};
} // namespace
