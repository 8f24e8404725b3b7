//===- Int8ToFloat.cpp - i8 to float by building the float's bits ---------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// tile-int8-to-float-by-bits: an i8 `x` converted to f16 is the f16 whose
// bits are 0x6400 | u, with u = x ^ 0x80 for a signed x (x + 128, as a byte)
// and u = x for an unsigned one, that is 1024 + u, minus 1152 (signed) or
// 1024 (unsigned). Every step is exact: 1024 + u < 2048 fits the f16
// mantissa, and the difference is an integer of at most 8 bits. For f32 the
// base is 2^23 (0x4B000000). The integer steps work on whole registers of
// bytes, the subtraction on f16 pairs; the instruction it replaces
// (I2F) runs at a quarter rate, one element at a time.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/Passes.h"

#include "mlir/Analysis/DataFlow/ConstantPropagationAnalysis.h"
#include "mlir/Analysis/DataFlow/DeadCodeAnalysis.h"
#include "mlir/Analysis/DataFlow/IntegerRangeAnalysis.h"
#include "mlir/Analysis/DataFlowFramework.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_CONVERTINT8TOFLOATBYBITS
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// `type` with its element type replaced by `element` (a vector keeps its
/// shape).
static Type withElement(Type type, Type element) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(element);
  return element;
}

/// A constant of `type` (a scalar or a splat vector) holding `attr`.
static Value splat(PatternRewriter &rewriter, Location loc, Type type,
                   TypedAttr attr) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(rewriter, loc,
                                     SplatElementsAttr::get(vector, attr));
  return arith::ConstantOp::create(rewriter, loc, attr);
}

template <typename ConvertOp, bool isSigned>
struct Int8ToFloat : OpRewritePattern<ConvertOp> {
  using OpRewritePattern<ConvertOp>::OpRewritePattern;

  /// The float bits of a vector of bytes, four bytes (one 32-bit word) at a
  /// time: one `lop3` flips the word's sign bits, and each `prmt` places
  /// bytes under the base's high bytes (two f16 or one f32 per result).
  static Value buildWordwise(PatternRewriter &rewriter, Location loc,
                             Value bytes, Type out, int64_t base) {
    auto type = cast<VectorType>(bytes.getType());
    int64_t words = type.getNumElements() / 4;
    Type i32 = rewriter.getI32Type();
    auto constant = [&](int64_t v) -> Value {
      return arith::ConstantOp::create(rewriter, loc,
                                       rewriter.getI32IntegerAttr(v));
    };
    Value packed = vector::BitCastOp::create(
        rewriter, loc, VectorType::get({words}, i32), bytes);
    if (isSigned)
      packed = arith::XOrIOp::create(
          rewriter, loc, packed,
          splat(rewriter, loc, packed.getType(),
                rewriter.getI32IntegerAttr(int32_t(0x80808080u))));
    // f16: result bytes {b, 0x64, b', 0x64}, the base's high byte from the
    // second operand (bytes 4-7); f32: {b, 0, 0, 0x4B}.
    bool half = out.isF16();
    Value high = constant(half ? 0x64646464 : int32_t(base));
    SmallVector<int64_t> selectors =
        half ? SmallVector<int64_t>{0x4140, 0x4342}
             : SmallVector<int64_t>{0x7440, 0x7441, 0x7442, 0x7443};
    SmallVector<Value> results;
    for (int64_t w = 0; w < words; ++w) {
      Value word = vector::ExtractOp::create(rewriter, loc, packed, w);
      for (int64_t selector : selectors)
        results.push_back(NVVM::PermuteOp::create(rewriter, loc, i32, word,
                                                  high, constant(selector),
                                                  NVVM::PermuteMode::DEFAULT));
    }
    Value bits = vector::FromElementsOp::create(
        rewriter, loc, VectorType::get({int64_t(results.size())}, i32),
        results);
    return vector::BitCastOp::create(rewriter, loc, type.clone(out), bits);
  }

  LogicalResult matchAndRewrite(ConvertOp op,
                                PatternRewriter &rewriter) const override {
    Type in = getElementTypeOrSelf(op.getIn().getType());
    Type out = getElementTypeOrSelf(op.getType());
    if (!in.isInteger(8) || !(out.isF16() || out.isF32()))
      return rewriter.notifyMatchFailure(op, "not i8 to f16 or f32");
    Location loc = op.getLoc();
    unsigned width = out.getIntOrFloatBitWidth();
    Type word = rewriter.getIntegerType(width);
    // 1024.0 (f16) or 2^23 (f32): the float whose lowest mantissa bits the
    // byte becomes.
    int64_t base = out.isF16() ? 0x6400 : 0x4B000000;
    double baseValue = out.isF16() ? 1024.0 : 8388608.0;

    Value byte = op.getIn();
    auto vector = dyn_cast<VectorType>(byte.getType());
    if (vector && vector.getRank() == 1 && vector.getNumElements() % 4 == 0) {
      Value value = buildWordwise(rewriter, loc, byte, out, base);
      rewriter.replaceOpWithNewOp<arith::SubFOp>(
          op, value,
          splat(rewriter, loc, op.getType(),
                rewriter.getFloatAttr(out, baseValue + (isSigned ? 128 : 0))));
      return success();
    }
    if (isSigned)
      byte = arith::XOrIOp::create(rewriter, loc, byte,
                                   splat(rewriter, loc, byte.getType(),
                                         rewriter.getIntegerAttr(in, 0x80)));
    Value bits = arith::ExtUIOp::create(
        rewriter, loc, withElement(byte.getType(), word), byte);
    bits = arith::OrIOp::create(rewriter, loc, bits,
                                splat(rewriter, loc, bits.getType(),
                                      rewriter.getIntegerAttr(word, base)));
    Value value = arith::BitcastOp::create(rewriter, loc, op.getType(), bits);
    rewriter.replaceOpWithNewOp<arith::SubFOp>(
        op, value,
        splat(rewriter, loc, op.getType(),
              rewriter.getFloatAttr(out, baseValue + (isSigned ? 128 : 0))));
    return success();
  }
};

/// Wider integers whose range the integer range analysis bounds (a nibble
/// unpacked with shifts and masks, minus its zero point) convert the same
/// way, one element per 32-bit word: with `bias` half the mantissa's range
/// for signed values, x + bits(base + bias) is the float base + bias + x,
/// and subtracting base + bias leaves x. For f16 the words are truncated
/// to 16 bits (pairs packed by one prmt).
static void convertNarrowRanges(Operation *root) {
  DataFlowSolver solver;
  solver.load<dataflow::DeadCodeAnalysis>();
  solver.load<dataflow::SparseConstantPropagation>();
  solver.load<dataflow::IntegerRangeAnalysis>();
  if (failed(solver.initializeAndRun(root)))
    return;
  SmallVector<Operation *> conversions;
  root->walk([&](Operation *op) {
    if (isa<arith::SIToFPOp, arith::UIToFPOp>(op))
      conversions.push_back(op);
  });
  for (Operation *op : conversions) {
    Value in = op->getOperand(0);
    Type resultType = op->getResult(0).getType();
    auto type = dyn_cast<IntegerType>(getElementTypeOrSelf(in.getType()));
    Type out = getElementTypeOrSelf(resultType);
    if (!type || !(out.isF16() || out.isF32()) ||
        !(type.getWidth() == 32 || (type.getWidth() == 16 && out.isF16())))
      continue;
    auto *lattice = solver.lookupState<dataflow::IntegerValueRangeLattice>(in);
    if (!lattice || lattice->getValue().isUninitialized())
      continue;
    const ConstantIntRanges &range = lattice->getValue().getValue();
    // The mantissa's bits: 10 (f16) or 23 (f32).
    int64_t mantissa = out.isF16() ? 10 : 23;
    int64_t span = int64_t(1) << mantissa;
    bool isSigned = isa<arith::SIToFPOp>(op);
    int64_t low =
        isSigned ? range.smin().getSExtValue() : range.umin().getZExtValue();
    int64_t high =
        isSigned ? range.smax().getSExtValue() : range.umax().getZExtValue();
    int64_t bias;
    if (low >= 0 && high < span)
      bias = 0;
    else if (isSigned && low >= -span / 2 && high < span / 2)
      bias = span / 2;
    else
      continue;
    int64_t baseBits = out.isF16() ? 0x6400 : 0x4B000000;
    double baseValue = out.isF16() ? 1024.0 : 8388608.0;
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto splatOf = [&](Type t, TypedAttr attr) -> Value {
      if (auto vector = dyn_cast<VectorType>(t))
        return arith::ConstantOp::create(b, loc,
                                         SplatElementsAttr::get(vector, attr));
      return arith::ConstantOp::create(b, loc, attr);
    };
    Value bits = arith::AddIOp::create(
        b, loc, in,
        splatOf(in.getType(), b.getIntegerAttr(type, baseBits + bias)));
    Type word = b.getIntegerType(out.getIntOrFloatBitWidth());
    if (type != word)
      bits = arith::TruncIOp::create(b, loc, withElement(in.getType(), word),
                                     bits);
    Value value = arith::BitcastOp::create(b, loc, resultType, bits);
    Value converted = arith::SubFOp::create(
        b, loc, value,
        splatOf(resultType, b.getFloatAttr(out, baseValue + bias)));
    op->getResult(0).replaceAllUsesWith(converted);
    op->erase();
  }
}

struct ConvertInt8ToFloatByBits
    : tile::impl::ConvertInt8ToFloatByBitsBase<ConvertInt8ToFloatByBits> {
  void runOnOperation() override {
    convertNarrowRanges(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<Int8ToFloat<arith::SIToFPOp, true>,
                 Int8ToFloat<arith::UIToFPOp, false>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
