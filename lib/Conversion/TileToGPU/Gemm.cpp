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

Value mlir::tile::gpu_lowering::loadFragmentSlot(OpBuilder &b, Location loc,
                                                 const FragmentStorage &f,
                                                 int64_t slot) {
  return memref::LoadOp::create(
      b, loc, f.slots, ValueRange{constantIndex(b, loc, slot)});
}

void mlir::tile::gpu_lowering::storeFragmentSlot(OpBuilder &b, Location loc,
                                                 const FragmentStorage &f,
                                                 int64_t slot, Value v) {
  memref::StoreOp::create(b, loc, v, f.slots,
                          ValueRange{constantIndex(b, loc, slot)});
}

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

struct GemmOpLowering : public TileOpLowering<GemmOp> {
  using TileOpLowering::TileOpLowering;

  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    const KernelContext &k = context;
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
        storeFragmentSlot(rewriter, loc, c, slot, zero);
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
      return context.fail();
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void mlir::tile::gpu_lowering::populateGemmPatterns(RewritePatternSet &patterns,
                                                    KernelContext &context) {
  patterns.add<GemmOpLowering>(patterns.getContext(), context);
}
