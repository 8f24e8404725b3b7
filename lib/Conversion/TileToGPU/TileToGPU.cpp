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
    SmallVector<KernelOp> kernels;
    getOperation()->walk([&](KernelOp kernel) { kernels.push_back(kernel); });
    IRRewriter rewriter(&getContext());
    for (KernelOp kernel : kernels) {
      FailureOr<TargetInfo> target = getTarget(kernel);
      if (failed(target))
        return signalPassFailure();
      if (target->isCPU()) {
        kernel.emitOpError("cannot be lowered to the GPU for target '")
            << target->chip << "'; attach a GPU target (tile-attach-target)";
        return signalPassFailure();
      }
      if (failed(lowerKernelToGPU(rewriter, kernel, *target)))
        return signalPassFailure();
    }
  }
};
} // namespace
