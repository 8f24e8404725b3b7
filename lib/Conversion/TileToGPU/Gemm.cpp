//===- Gemm.cpp - tile.gemm on the GPU ------------------------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile.gemm follows its GemmPlan (the one layout inference used, planned with
// the kernel): the operands are resolved to their storage, the accumulator
// cleared when asked, and the instruction's strategy emits the code.
//
//===----------------------------------------------------------------------===//

#include "Strategies/GemmStrategies.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::tile;
using namespace mlir::tile::gpu_lowering;

Value mlir::tile::gpu_lowering::readSharedOperand(const KernelContext &k,
                                                  OpBuilder &b, Location loc,
                                                  const GemmOperand &x,
                                                  Value row, Value col) {
  SmallVector<Value> index = x.transposed ? SmallVector<Value>{col, row}
                                          : SmallVector<Value>{row, col};
  return memref::LoadOp::create(b, loc, x.shared->memory,
                                k.sharedOffset(b, loc, *x.shared, index));
}

namespace {

struct GemmLowering
    : public GpuLoweringOpInterface::ExternalModel<GemmLowering, GemmOp> {
  /// The gemm's instruction and operand layouts (GemmPlan), which must be
  /// those layout inference gave its fragments.
  LogicalResult plan(Operation *op, KernelPlan &kernel) const {
    auto gemm = cast<GemmOp>(op);
    FailureOr<GemmPlan> gemmPlan =
        planGemm(gemm, kernel.target, getThreadCount(gemm));
    if (failed(gemmPlan))
      return failure();
    auto mismatch = [&](StringRef what) {
      return gemm.emitOpError(what)
             << " layout does not match " << gemmPlan->describe()
             << "; run tile-infer-layouts for this chip";
    };
    if (!kernel.fragments.count(gemm.getC()))
      return gemm.emitOpError("accumulator is not a tile.fragment");
    if (!haveSameOwners(kernel.getFragmentLayout(gemm.getC()), gemmPlan->c,
                        /*compareSlots=*/true))
      return mismatch("accumulator");
    for (auto [operand, layout] : {std::make_pair(gemm.getA(), &gemmPlan->a),
                                   std::make_pair(gemm.getB(), &gemmPlan->b)}) {
      if (kernel.fragments.count(operand)) {
        if (!haveSameOwners(kernel.getFragmentLayout(operand), *layout,
                            /*compareSlots=*/true))
          return mismatch("register operand");
      } else if (!kernel.shared.count(operand)) {
        return gemm.emitOpError("operand is neither a fragment nor a "
                                "tile.alloc_shared buffer");
      }
    }
    if (gemmPlan->instruction == GemmInstruction::Wgmma)
      kernel.asyncProxyUsesShared = true;
    kernel.gemms[op] = std::move(*gemmPlan);
    return success();
  }

  /// The accumulator cleared where asked, then the planned instruction's
  /// code (Strategies/).
  LogicalResult lower(Operation *gemmOp, KernelContext &k,
                      PatternRewriter &rewriter) const {
    auto op = cast<GemmOp>(gemmOp);
    Location loc = op.getLoc();
    const GemmPlan &plan = k.getGemmPlan(op);
    const FragmentStorage &c = *k.getFragment(op.getC());
    auto operand = [&](Value value, bool transposed) {
      GemmOperand x;
      x.value = value;
      x.transposed = transposed;
      x.elementType = cast<ShapedType>(value.getType()).getElementType();
      x.fragment = k.getFragment(value);
      x.shared = k.getShared(value);
      return x;
    };
    GemmOperand a = operand(op.getA(), op.getTransposeA());
    GemmOperand b = operand(op.getB(), op.getTransposeB());

    // wgmma clears the accumulator itself (its first k-step ignores it).
    if (op.getClearAccum() && plan.instruction != GemmInstruction::Wgmma) {
      Type type = c.type.getElementType();
      Value zero = arith::ConstantOp::create(rewriter, loc, type,
                                             rewriter.getZeroAttr(type));
      for (int64_t slot = 0, e = getSlotExtent(c.layout); slot < e; ++slot)
        c.store(rewriter, loc, slot, zero);
    }

    LogicalResult result = failure();
    switch (plan.instruction) {
    case GemmInstruction::Wgmma:
      result = emitWgmmaGemm(k, rewriter, op, plan, a, b, c);
      break;
    case GemmInstruction::MmaSync:
      result = emitMmaSyncGemm(k, rewriter, op, plan, a, b, c);
      break;
    case GemmInstruction::Fma:
      result = emitFmaGemm(k, rewriter, op, plan, a, b, c);
      break;
    case GemmInstruction::Mfma:
      result = emitMfmaGemm(k, rewriter, op, plan, a, b, c);
      break;
    }
    if (failed(result))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::attachGemmLowering(MLIRContext *context) {
  GemmOp::attachInterface<GemmLowering>(*context);
}
