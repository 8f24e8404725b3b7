//===- ExpandFloat8.cpp - f8 conversions as integer arithmetic ------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// LLVM has no 8-bit float types, so `arith.extf` and `arith.truncf` from or
// to f8E4M3FN, f8E5M2, f8E4M3FNUZ and f8E5M2FNUZ have no lowering (upstream
// expands only f8E8M0 and f4E2M1). This pass rewrites them into integer
// arithmetic on the bits, the same on the host and on every GPU:
//
// - extension: the f8 exponent and mantissa move into an f32's (rebiased);
//   subnormals are the mantissa as an integer times the subnormal step;
//   infinities and NaNs keep their class (the FNUZ types' one NaN, 0x80,
//   becomes a quiet f32 NaN). Exact; wider or narrower targets go through
//   f32, which holds every f8 value.
// - truncation from f32 or f64 (f16 and bf16 are extended to f32 first,
//   exactly): normal results shift the mantissa right rounding to nearest
//   even, a carry moving into the exponent; subnormal results shift the
//   significand by however far the exponent is below the smallest normal;
//   too large a value becomes infinity (f8E5M2) or NaN (the others, which
//   have none), as APFloat converts. The FNUZ types have no negative zero:
//   a result that rounds to zero is +0, and NaN is 0x80 whatever the sign.
//
//===----------------------------------------------------------------------===//

#include "tile/Conversion/ExpandFloat8/ExpandFloat8.h"
#include "tile/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::tile {
#define GEN_PASS_DEF_EXPANDFLOAT8
#include "tile/Conversion/Passes.h.inc"
} // namespace mlir::tile

using namespace mlir;

namespace {

/// How an 8-bit float format encodes its non-finite values.
enum class NonFinite {
  /// IEEE: infinities and NaNs at the all-ones exponent (f8E5M2).
  Ieee,
  /// No infinity; NaN at the all-ones magnitude 0x7f, either sign
  /// (f8E4M3FN).
  NanAtAllOnes,
  /// No infinity and no negative zero: one NaN, the negative zero's code
  /// 0x80 (f8E4M3FNUZ, f8E5M2FNUZ).
  NanAtNegativeZero,
};

/// The parameters of an 8-bit float format.
struct Float8Format {
  int64_t mantissaBits, exponentBits, bias;
  NonFinite nonFinite;

  static std::optional<Float8Format> get(Type type) {
    if (isa<Float8E4M3FNType>(type))
      return Float8Format{3, 4, 7, NonFinite::NanAtAllOnes};
    if (isa<Float8E5M2Type>(type))
      return Float8Format{2, 5, 15, NonFinite::Ieee};
    if (isa<Float8E4M3FNUZType>(type))
      return Float8Format{3, 4, 8, NonFinite::NanAtNegativeZero};
    if (isa<Float8E5M2FNUZType>(type))
      return Float8Format{2, 5, 16, NonFinite::NanAtNegativeZero};
    return std::nullopt;
  }
  int64_t exponentMask() const { return (1 << exponentBits) - 1; }
  /// The magnitude code of the first value too large to be finite (codes
  /// are ordered as magnitudes): infinity's in f8E5M2, NaN's in f8E4M3FN
  /// (whose largest finite value is one code below), and one past the
  /// largest, 0x7f, in the FNUZ types.
  int64_t overflowCode() const {
    switch (nonFinite) {
    case NonFinite::Ieee:
      return exponentMask() << mantissaBits;
    case NonFinite::NanAtAllOnes:
      return 0x7f;
    case NonFinite::NanAtNegativeZero:
      return 0x80;
    }
    llvm_unreachable("unknown non-finite encoding");
  }
};

/// Builds integer and float values of one shape: a scalar, or the shape of
/// the vector being converted.
struct ShapedBuilder {
  ImplicitLocOpBuilder &b;
  Type shape;

  Type like(Type element) const {
    if (auto vector = dyn_cast<VectorType>(shape))
      return vector.clone(element);
    return element;
  }
  Value constant(Type element, TypedAttr value) const {
    if (auto vector = dyn_cast<VectorType>(like(element)))
      return arith::ConstantOp::create(
          b, vector, DenseElementsAttr::get(vector, value));
    return arith::ConstantOp::create(b, value);
  }
  Value integer(unsigned width, uint64_t value) const {
    Type type = b.getIntegerType(width);
    return constant(type, b.getIntegerAttr(type, APInt(width, value)));
  }
  Value f32(double value) const {
    return constant(b.getF32Type(), b.getF32FloatAttr(value));
  }

  /// `x >> s` rounded to nearest, ties to even; 1 <= s < x's width.
  Value shiftRightRoundingToEven(Value x, Value s) const {
    unsigned width = getElementTypeOrSelf(x).getIntOrFloatBitWidth();
    Value one = integer(width, 1);
    Value quotient = arith::ShRUIOp::create(b, x, s);
    Value unit = arith::ShLIOp::create(b, one, s);
    Value rest =
        arith::AndIOp::create(b, x, arith::SubIOp::create(b, unit, one));
    Value half = arith::ShRUIOp::create(b, unit, one);
    Value above =
        arith::CmpIOp::create(b, arith::CmpIPredicate::ugt, rest, half);
    Value atHalf =
        arith::CmpIOp::create(b, arith::CmpIPredicate::eq, rest, half);
    Value odd = arith::TruncIOp::create(
        b, like(b.getI1Type()), arith::AndIOp::create(b, quotient, one));
    Value tie = arith::AndIOp::create(b, atHalf, odd);
    Value up = arith::OrIOp::create(b, above, tie);
    return arith::AddIOp::create(
        b, quotient, arith::ExtUIOp::create(b, x.getType(), up));
  }
};

/// f8 `value` (scalar or vector) extended exactly to f32.
Value extendToF32(ShapedBuilder &s, Value value, const Float8Format &format) {
  ImplicitLocOpBuilder &b = s.b;
  int64_t m = format.mantissaBits;
  Type i32 = s.like(b.getI32Type());
  Value x = arith::ExtUIOp::create(
      b, i32, arith::BitcastOp::create(b, s.like(b.getI8Type()), value));
  Value signBit = arith::AndIOp::create(b, x, s.integer(32, 0x80));
  Value sign = arith::ShLIOp::create(b, signBit, s.integer(32, 24));
  Value magnitude = arith::AndIOp::create(b, x, s.integer(32, 0x7f));
  Value exponent = arith::ShRUIOp::create(b, magnitude, s.integer(32, m));
  // Exponent and mantissa in place in an f32, the exponent rebiased.
  Value inPlace =
      arith::ShLIOp::create(b, magnitude, s.integer(32, 23 - m));
  Value normal = arith::AddIOp::create(
      b, inPlace, s.integer(32, uint64_t(127 - format.bias) << 23));
  // A subnormal is its mantissa times the subnormal step, an f32 normal.
  Value mantissa =
      arith::UIToFPOp::create(b, s.like(b.getF32Type()), magnitude);
  Value subnormal = arith::BitcastOp::create(
      b, i32,
      arith::MulFOp::create(b, mantissa,
                            s.f32(std::ldexp(1.0, 1 - format.bias - m))));
  Value isSubnormal = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                            exponent, s.integer(32, 0));
  Value bits = arith::SelectOp::create(b, isSubnormal, subnormal, normal);
  if (format.nonFinite == NonFinite::NanAtNegativeZero) {
    // Every exponent is finite; the negative zero's code is the NaN.
    bits = arith::OrIOp::create(b, bits, sign);
    Value isNaN = arith::CmpIOp::create(b, arith::CmpIPredicate::eq, x,
                                        s.integer(32, 0x80));
    bits = arith::SelectOp::create(b, isNaN, s.integer(32, 0x7fc00000), bits);
    return arith::BitcastOp::create(b, s.like(b.getF32Type()), bits);
  }
  // Infinities and NaNs: an all-ones f32 exponent over the same mantissa.
  Value special =
      arith::OrIOp::create(b, inPlace, s.integer(32, 0x7f800000));
  Value isSpecial =
      format.nonFinite == NonFinite::Ieee
          ? arith::CmpIOp::create(b, arith::CmpIPredicate::eq, exponent,
                                  s.integer(32, format.exponentMask()))
          : arith::CmpIOp::create(b, arith::CmpIPredicate::eq, magnitude,
                                  s.integer(32, 0x7f));
  bits = arith::SelectOp::create(b, isSpecial, special, bits);
  bits = arith::OrIOp::create(b, bits, sign);
  return arith::BitcastOp::create(b, s.like(b.getF32Type()), bits);
}

/// f32 or f64 `value` rounded to nearest even into the f8 type `result`.
Value truncateToFloat8(ShapedBuilder &s, Value value, Type result,
                       const Float8Format &format) {
  ImplicitLocOpBuilder &b = s.b;
  auto source = cast<FloatType>(getElementTypeOrSelf(value));
  unsigned w = source.getWidth();
  int64_t p = source.getFPMantissaWidth() - 1;
  int64_t sourceBias = (int64_t(1) << (w - p - 2)) - 1;
  int64_t m = format.mantissaBits, bias = format.bias;
  Type iw = s.like(b.getIntegerType(w));

  Value u = arith::BitcastOp::create(b, iw, value);
  Value magnitude = arith::AndIOp::create(
      b, u, s.integer(w, (uint64_t(1) << (w - 1)) - 1));
  Value isNaN = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ugt, magnitude,
      s.integer(w, ((uint64_t(1) << (w - 1 - p)) - 1) << p));
  Value isSubnormal = arith::CmpIOp::create(
      b, arith::CmpIPredicate::ult, magnitude,
      s.integer(w, uint64_t(1 - bias + sourceBias) << p));

  // Normal: drop p - m mantissa bits (a carry runs into the exponent),
  // then rebias the exponent (taken only above the subnormal range, where
  // the subtraction does not wrap around).
  Value rounded = s.shiftRightRoundingToEven(magnitude, s.integer(w, p - m));
  Value normal = arith::SubIOp::create(
      b, rounded, s.integer(w, uint64_t(sourceBias - bias) << m));
  // Subnormal: the significand in units of the f8 subnormal step, shifted
  // by how far the exponent is below it (at most p + 2: further rounds to
  // 0, and a shift as wide as the integer would be poison).
  Value exponent = arith::ShRUIOp::create(b, magnitude, s.integer(w, p));
  Value isNormal = arith::CmpIOp::create(b, arith::CmpIPredicate::ne, exponent,
                                         s.integer(w, 0));
  Value leadingOne = s.integer(w, uint64_t(1) << p);
  Value implicit =
      arith::SelectOp::create(b, isNormal, leadingOne, s.integer(w, 0));
  Value significand = arith::OrIOp::create(
      b,
      arith::AndIOp::create(b, magnitude,
                            s.integer(w, (uint64_t(1) << p) - 1)),
      implicit);
  Value below = arith::SubIOp::create(
      b, s.integer(w, sourceBias + p + 1 - bias - m), exponent);
  Value shift = arith::MinUIOp::create(b, below, s.integer(w, p + 2));
  Value subnormal = s.shiftRightRoundingToEven(significand, shift);

  // Codes are ordered as magnitudes: every one from the overflow code up is
  // too large, and becomes infinity or NaN.
  int64_t overflow = format.overflowCode();
  bool fnuz = format.nonFinite == NonFinite::NanAtNegativeZero;
  Value code = arith::SelectOp::create(b, isSubnormal, subnormal, normal);
  code = arith::MinUIOp::create(b, code, s.integer(w, overflow));
  code = arith::SelectOp::create(b, isNaN, s.integer(w, fnuz ? 0x80 : 0x7f),
                                 code);
  Type i8 = s.like(b.getI8Type());
  Value signBit = arith::TruncIOp::create(
      b, i8, arith::ShRUIOp::create(b, u, s.integer(w, w - 1)));
  Value sign = arith::ShLIOp::create(b, signBit, s.integer(8, 7));
  Value code8 = arith::TruncIOp::create(b, i8, code);
  // The FNUZ types' NaN, 0x80, has the sign bit set already; their zero
  // has no sign.
  if (fnuz) {
    Value roundsToZero = arith::CmpIOp::create(b, arith::CmpIPredicate::eq,
                                               code8, s.integer(8, 0));
    sign = arith::SelectOp::create(b, roundsToZero, s.integer(8, 0), sign);
  }
  Value bits = arith::OrIOp::create(b, code8, sign);
  return arith::BitcastOp::create(b, result, bits);
}

struct ExtendFloat8 : OpRewritePattern<arith::ExtFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::ExtFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Float8Format> format =
        Float8Format::get(getElementTypeOrSelf(op.getIn()));
    if (!format)
      return rewriter.notifyMatchFailure(op, "not an f8 source");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    ShapedBuilder s{b, op.getType()};
    Value f32 = extendToF32(s, op.getIn(), *format);
    Value result = f32;
    unsigned width = getElementTypeOrSelf(op.getType()).getIntOrFloatBitWidth();
    if (width > 32)
      result = arith::ExtFOp::create(b, op.getType(), f32);
    else if (op.getType() != f32.getType())
      result = arith::TruncFOp::create(b, op.getType(), f32); // exact
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct TruncateToFloat8 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<Float8Format> format =
        Float8Format::get(getElementTypeOrSelf(op.getType()));
    if (!format)
      return rewriter.notifyMatchFailure(op, "not an f8 result");
    if (op.getRoundingmodeAttr() &&
        op.getRoundingmode() != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "rounding other than to even");
    ImplicitLocOpBuilder b(op.getLoc(), rewriter);
    ShapedBuilder s{b, op.getType()};
    Value in = op.getIn();
    unsigned width = getElementTypeOrSelf(in).getIntOrFloatBitWidth();
    if (width > 64)
      return rewriter.notifyMatchFailure(op, "source wider than f64");
    // f16 and bf16 extend exactly to f32.
    if (width < 32)
      in = arith::ExtFOp::create(b, s.like(b.getF32Type()), in);
    rewriter.replaceOp(op, truncateToFloat8(s, in, op.getType(), *format));
    return success();
  }
};

struct ExpandFloat8 : tile::impl::ExpandFloat8Base<ExpandFloat8> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    tile::populateExpandFloat8Patterns(patterns);
    // One walk: what the patterns build converts no f8 value again.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // What is left has no lowering at all: say so where it is.
    getOperation()->walk([&](Operation *op) {
      if (!isa<arith::ExtFOp, arith::TruncFOp>(op) ||
          (!Float8Format::get(getElementTypeOrSelf(op->getOperand(0))) &&
           !Float8Format::get(getElementTypeOrSelf(op->getResult(0)))))
        return;
      op->emitOpError("converts ")
          << op->getOperand(0).getType() << " to " << op->getResult(0).getType()
          << ", which tile-expand-float8 cannot expand (f8 conversions round "
             "to nearest even, from sources up to f64)";
      signalPassFailure();
    });
  }
};

} // namespace

void mlir::tile::populateExpandFloat8Patterns(RewritePatternSet &patterns) {
  patterns.add<ExtendFloat8, TruncateToFloat8>(patterns.getContext());
}
