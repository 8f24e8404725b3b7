//===- NVVMMath.cpp - fast math on the NVIDIA path ------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's convert-gpu-to-nvvm lowers f32 `math.exp2` to libdevice's
// `__nv_exp2f`, which is `ex2.approx.f32` keeping subnormal results: ptxas
// expands it into a range test, two scalings and the MUFU.EX2. A kernel
// that allows approximate functions (`fastmath<afn>`, as softmax in
// attention does) needs none of that: tile-math-to-nvvm-intrinsics gives
// it the single instruction, `ex2.approx.ftz.f32`.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CHECKNVVMTOOLKIT
#define GEN_PASS_DEF_CONVERTMATHTONVVMINTRINSICS
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// math.exp2 fastmath<afn> on f32 -> ex2.approx.ftz.f32.
struct ApproximateExp2 : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    if (!arith::bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn))
      return rewriter.notifyMatchFailure(op, "approximation not allowed");
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rewriter.getStringAttr("llvm.nvvm.ex2.approx.ftz"),
        ValueRange{op.getOperand()});
    return success();
  }
};

struct ConvertMathToNVVMIntrinsics
    : tile::impl::ConvertMathToNVVMIntrinsicsBase<ConvertMathToNVVMIntrinsics> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ApproximateExp2>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

struct CheckNVVMToolkit : tile::impl::CheckNVVMToolkitBase<CheckNVVMToolkit> {
  using CheckNVVMToolkitBase::CheckNVVMToolkitBase;
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    if (ptxas.empty() && format != "isa") {
      module.emitError() << "kernel '" << module.getName()
                         << "' needs ptxas to become a " << format
                         << ", and none was found: set CUDA_HOME to a CUDA "
                            "toolkit, put ptxas on PATH, or install NVIDIA's "
                            "nvidia-cuda-nvcc wheel (docs/pipeline.md)";
      signalPassFailure();
    }
    if (!libdevice.empty())
      return;
    module.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || !callee->starts_with("__nv_"))
        return;
      call.emitError() << "calls '" << *callee
                       << "' of CUDA's libdevice, which was not found: set "
                          "CUDA_HOME to a CUDA toolkit, or install NVIDIA's "
                          "nvidia-nvvm wheel (docs/pipeline.md)";
      signalPassFailure();
    });
  }
};

} // namespace
