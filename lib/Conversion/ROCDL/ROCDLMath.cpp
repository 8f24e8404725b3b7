//===- ROCDLMath.cpp - math on the AMD path without device libraries ------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// Upstream's convert-gpu-to-rocdl lowers several math ops to calls into
// ROCm's device library (ocml). tile-to-rocdl links none: f32 math that has
// a hardware instruction or an LLVM intrinsic is rewritten before the
// conversion (tile-math-to-rocdl-intrinsics), and whatever still calls the
// library afterwards is refused by name (tile-check-rocdl-library-calls).
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTMATHTOROCDLINTRINSICS
#define GEN_PASS_DEF_CHECKROCDLLIBRARYCALLS
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// math.exp2 on f32 -> rocdl.exp2 (v_exp_f32).
struct Exp2ToRocdl : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    rewriter.replaceOpWithNewOp<ROCDL::ROCDLExp2>(op, op.getType(),
                                                  op.getOperand());
    return success();
  }
};

/// math.rsqrt on f32 -> 1 / math.sqrt.
struct RsqrtToSqrt : OpRewritePattern<math::RsqrtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(math::RsqrtOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    Value one = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getF32FloatAttr(1.0f));
    Value root = math::SqrtOp::create(rewriter, loc, op.getOperand());
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, one, root);
    return success();
  }
};

struct ConvertMathToROCDLIntrinsics
    : tile::impl::ConvertMathToROCDLIntrinsicsBase<
          ConvertMathToROCDLIntrinsics> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<Exp2ToRocdl, RsqrtToSqrt>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

struct CheckROCDLLibraryCalls
    : tile::impl::CheckROCDLLibraryCallsBase<CheckROCDLLibraryCalls> {
  using Base::Base;
  void runOnOperation() override {
    getOperation().walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (!callee || !(callee->starts_with("__ocml_") ||
                       callee->starts_with("__ockl_")))
        return;
      // gpu.printf (tile.print) as the hostcall printf of the library: one
      // error for each printf, at its first call.
      if (callee->starts_with("__ockl_printf_")) {
        if (deviceLibrary || *callee != "__ockl_printf_begin")
          return;
        call.emitError() << "prints through '" << *callee
                         << "' of ROCm's device library (the hostcall "
                            "printf), which was not found: tile.print on "
                            "AMD needs a ROCm installation with "
                            "amdgcn/bitcode (ROCM_PATH)";
        signalPassFailure();
        return;
      }
      call.emitError() << "calls '" << *callee
                       << "' of ROCm's device library, which the AMD path "
                          "does not link (math on f32 with exp, exp2, log, "
                          "sqrt and rsqrt lowers without it)";
      signalPassFailure();
    });
  }
};

} // namespace
