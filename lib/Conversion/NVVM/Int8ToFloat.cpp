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
#include "mlir/IR/Matchers.h"
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
static Value splat(OpBuilder &b, Location loc, Type type, TypedAttr attr) {
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc,
                                     SplatElementsAttr::get(vector, attr));
  return arith::ConstantOp::create(b, loc, attr);
}

/// An i32 constant.
static Value i32Constant(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(int32_t(v)));
}

/// Each word of `packed` (a vector of i32) permuted by `prmt` with `second`
/// (bytes 4-7) under each of `selectors`: a vector of one i32 per word and
/// selector, in that order.
static Value permuteWords(OpBuilder &b, Location loc, Value packed,
                          Value second, ArrayRef<int64_t> selectors) {
  Type i32 = b.getI32Type();
  int64_t words = cast<VectorType>(packed.getType()).getNumElements();
  SmallVector<Value> results;
  for (int64_t w = 0; w < words; ++w) {
    Value word = vector::ExtractOp::create(b, loc, packed, w);
    for (int64_t selector : selectors)
      results.push_back(NVVM::PermuteOp::create(b, loc, i32, word, second,
                                                i32Constant(b, loc, selector),
                                                NVVM::PermuteMode::DEFAULT));
  }
  return vector::FromElementsOp::create(
      b, loc, VectorType::get({int64_t(results.size())}, i32), results);
}

/// The floats base + u of a vector of bytes (u = x ^ flip ^ 0x80 when
/// `isSigned`, else x ^ flip; base 1024.0 for f16, 2^23 for f32), four
/// bytes (one 32-bit word) at a time: one `xor` flips the word's sign (and
/// `flip`'s) bits, and each `prmt` places bytes under the base's high bytes
/// (two f16 or one f32 per result).
static Value buildWordwise(OpBuilder &b, Location loc, Value bytes, Type out,
                           bool isSigned, uint8_t flip = 0) {
  auto type = cast<VectorType>(bytes.getType());
  int64_t words = type.getNumElements() / 4;
  Value packed = vector::BitCastOp::create(
      b, loc, VectorType::get({words}, b.getI32Type()), bytes);
  uint32_t flips = (isSigned ? 0x80u : 0u) ^ flip;
  if (flips)
    packed = arith::XOrIOp::create(
        b, loc, packed,
        splat(b, loc, packed.getType(),
              b.getI32IntegerAttr(int32_t(flips * 0x01010101u))));
  // f16: result bytes {b, 0x64, b', 0x64}, the base's high byte from the
  // second operand (bytes 4-7); f32: {b, 0, 0, 0x4B}.
  bool half = out.isF16();
  Value high = i32Constant(b, loc, half ? 0x64646464 : 0x4B000000);
  SmallVector<int64_t> selectors =
      half ? SmallVector<int64_t>{0x4140, 0x4342}
           : SmallVector<int64_t>{0x7440, 0x7441, 0x7442, 0x7443};
  Value bits = permuteWords(b, loc, packed, high, selectors);
  return vector::BitCastOp::create(b, loc, type.clone(out), bits);
}

template <typename ConvertOp, bool isSigned>
struct Int8ToFloat : OpRewritePattern<ConvertOp> {
  using OpRewritePattern<ConvertOp>::OpRewritePattern;

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
      Value value = buildWordwise(rewriter, loc, byte, out, isSigned);
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

/// The integer constants of `value`, a constant scalar (one) or vector.
static std::optional<SmallVector<int64_t>> getConstants(Value value) {
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  if (auto scalar = dyn_cast<IntegerAttr>(attr))
    return SmallVector<int64_t>{scalar.getValue().getSExtValue()};
  auto elements = dyn_cast<DenseIntElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (const APInt &v : elements.getValues<APInt>())
    values.push_back(v.getSExtValue());
  return values;
}

/// The integer constant every element of `value` holds, a constant scalar
/// or splat vector.
static std::optional<int64_t> getSplatConstant(Value value) {
  std::optional<SmallVector<int64_t>> values = getConstants(value);
  if (!values ||
      llvm::any_of(*values, [&](int64_t v) { return v != values->front(); }))
    return std::nullopt;
  return values->front();
}

/// 4-bit values unpacked from a vector of bytes with shifts and masks,
/// `(ext(shuffle(bytes)) >> shifts) & 15` with every shift 0 or 4 (two
/// weights a byte, as a T.Parallel over `packed[i, j // 2] >> (j % 2) * 4`
/// vectorizes), become whole words of nibbles: for each 32-bit word of
/// bytes, its low nibbles `w & 0x0F0F0F0F` and its high ones
/// `(w >> 4) & 0x0F0F0F0F`, and one `prmt` per four results picks their
/// bytes in the shuffle's order. The i32 vector the mask gave is then the
/// bytes zero-extended, which tile-int8-to-float-by-bits converts by words
/// too: 8 weights cost 3 integer operations and 2 `prmt`s instead of a
/// shift and a mask each on 32-bit lanes.
static void unpackNibbles(Operation *root) {
  SmallVector<arith::AndIOp> masks;
  root->walk([&](arith::AndIOp op) { masks.push_back(op); });
  for (arith::AndIOp op : masks) {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getRank() != 1 || type.getNumElements() % 4 != 0 ||
        !type.getElementType().isInteger() || type.getElementTypeBitWidth() < 8)
      continue;
    std::optional<SmallVector<int64_t>> mask = getConstants(op.getRhs());
    if (!mask || llvm::any_of(*mask, [](int64_t m) { return m != 15; }))
      continue;
    Operation *shift = op.getLhs().getDefiningOp();
    if (!isa_and_nonnull<arith::ShRSIOp, arith::ShRUIOp>(shift))
      continue;
    std::optional<SmallVector<int64_t>> shifts =
        getConstants(shift->getOperand(1));
    Operation *ext = shift->getOperand(0).getDefiningOp();
    if (!shifts || !isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp>(ext))
      continue;
    auto shuffle = ext->getOperand(0).getDefiningOp<vector::ShuffleOp>();
    if (!shuffle || shuffle.getV1() != shuffle.getV2())
      continue;
    auto bytesType = dyn_cast<VectorType>(shuffle.getV1().getType());
    if (!bytesType || !bytesType.getElementType().isInteger(8) ||
        bytesType.getRank() != 1 || bytesType.getNumElements() % 4 != 0)
      continue;
    int64_t count = type.getNumElements();
    int64_t size = bytesType.getNumElements();
    if (shifts->size() == 1)
      shifts->assign(count, shifts->front());
    // Each result word's four elements from one word of bytes, shifted by
    // 0 (its low nibbles) or 4 (its high ones): a prmt selector over the
    // two.
    ArrayRef<int64_t> order = shuffle.getMask();
    SmallVector<std::pair<int64_t, int64_t>> words; // (source word, selector)
    bool ok = true;
    for (int64_t q = 0; ok && q < count / 4; ++q) {
      int64_t source = -1, selector = 0;
      for (int64_t m = 0; m < 4; ++m) {
        int64_t e = 4 * q + m;
        int64_t index = order[e] >= size ? order[e] - size : order[e];
        int64_t amount = (*shifts)[e];
        if (index < 0 || (amount != 0 && amount != 4) ||
            (source >= 0 && source != index / 4)) {
          ok = false;
          break;
        }
        source = index / 4;
        selector |= ((amount == 4 ? 4 : 0) + index % 4) << (4 * m);
      }
      words.push_back({source, selector});
    }
    if (!ok)
      continue;

    OpBuilder b(op);
    Location loc = op.getLoc();
    Type i32 = b.getI32Type();
    Value packed = vector::BitCastOp::create(
        b, loc, VectorType::get({size / 4}, i32), shuffle.getV1());
    Value lowMask = i32Constant(b, loc, 0x0F0F0F0F);
    Value four = i32Constant(b, loc, 4);
    DenseMap<int64_t, std::pair<Value, Value>> nibbles;
    SmallVector<Value> results;
    for (auto [source, selector] : words) {
      auto [it, inserted] = nibbles.try_emplace(source);
      if (inserted) {
        Value word = vector::ExtractOp::create(b, loc, packed, source);
        Value low = arith::AndIOp::create(b, loc, word, lowMask);
        Value high = arith::AndIOp::create(
            b, loc, arith::ShRUIOp::create(b, loc, word, four), lowMask);
        it->second = {low, high};
      }
      results.push_back(NVVM::PermuteOp::create(
          b, loc, i32, it->second.first, it->second.second,
          i32Constant(b, loc, selector), NVVM::PermuteMode::DEFAULT));
    }
    Value bits = vector::FromElementsOp::create(
        b, loc, VectorType::get({count / 4}, i32), results);
    Value bytes = vector::BitCastOp::create(
        b, loc, VectorType::get({count}, b.getI8Type()), bits);
    Value widened = bytes;
    if (type.getElementTypeBitWidth() > 8)
      widened = arith::ExtUIOp::create(b, loc, type, bytes);
    op.getResult().replaceAllUsesWith(widened);
    op.erase();
  }
}

/// Two's complement nibbles as users unpack them (TileLang's w4a8 example):
/// the nibble moved to the top of a byte and shifted back arithmetically,
/// `sitofp(shrsi(trunci(shli(ext(bytes), s)), 4))` with each s 0 (the high
/// nibble) or 4 (the low one), become
/// `sitofp((((ext(bytes) >> (4 - s)) & 15) ^ 8) - 8)`: unsigned nibbles,
/// which unpackNibbles takes by words, and an offset that the conversion
/// by bits folds (`^ 8` on the words of nibbles, `- 8` into the float's
/// constant).
static void rewriteSignedNibbles(Operation *root) {
  SmallVector<arith::ShRSIOp> candidates;
  root->walk([&](arith::ShRSIOp op) { candidates.push_back(op); });
  for (arith::ShRSIOp op : candidates) {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || !type.getElementType().isInteger(8) ||
        getSplatConstant(op.getRhs()) != 4 ||
        !llvm::all_of(op->getUsers(), llvm::IsaPred<arith::SIToFPOp>))
      continue;
    auto trunc = op.getLhs().getDefiningOp<arith::TruncIOp>();
    auto shl = trunc ? trunc.getIn().getDefiningOp<arith::ShLIOp>() : nullptr;
    std::optional<SmallVector<int64_t>> left =
        shl ? getConstants(shl.getRhs()) : std::nullopt;
    if (!left ||
        llvm::any_of(*left, [](int64_t v) { return v != 0 && v != 4; }))
      continue;
    Operation *ext = shl.getLhs().getDefiningOp();
    if (!isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp>(ext) ||
        !getElementTypeOrSelf(ext->getOperand(0).getType()).isInteger(8))
      continue;
    auto wide = cast<VectorType>(shl.getType());
    Type element = wide.getElementType();
    if (left->size() == 1)
      left->assign(wide.getNumElements(), left->front());
    SmallVector<Attribute> amounts;
    for (int64_t v : *left)
      amounts.push_back(IntegerAttr::get(element, 4 - v));
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto constant = [&](int64_t v) {
      return splat(b, loc, wide, IntegerAttr::get(element, v));
    };
    Value nibble = arith::AndIOp::create(
        b, loc,
        arith::ShRUIOp::create(
            b, loc, shl.getLhs(),
            arith::ConstantOp::create(b, loc,
                                      DenseElementsAttr::get(wide, amounts))),
        constant(15));
    Value value = arith::SubIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, nibble, constant(8)),
        constant(8));
    for (Operation *user : llvm::make_early_inc_range(op->getUsers())) {
      OpBuilder at(user);
      auto converted = arith::SIToFPOp::create(
          at, user->getLoc(), user->getResult(0).getType(), value);
      user->getResult(0).replaceAllUsesWith(converted.getResult());
      user->erase();
    }
  }
}

/// `in`, an integer converted to a float by `convert`, as `ext(bytes) - c`
/// or `(ext(bytes) ^ k) - c` (either without `- c`) for a vector of bytes
/// that whole words hold and 0 <= k < 128: the conversion is then the
/// bytes' floats by words minus one constant. The float base + u (u the
/// byte ^ k, its sign flipped when signed) minus base + 128 (signed) + c is
/// x - c exactly where |c| <= 128: both are integers below 2048 within a
/// factor of two. uitofp only of unsigned bytes without c (its input must
/// not be negative).
static bool convertBytesMinusConstant(Operation *convert, Value in) {
  Type resultType = convert->getResult(0).getType();
  Type out = getElementTypeOrSelf(resultType);
  if (!(out.isF16() || out.isF32()))
    return false;
  int64_t c = 0;
  if (auto sub = in.getDefiningOp<arith::SubIOp>()) {
    std::optional<int64_t> value = getSplatConstant(sub.getRhs());
    if (!value)
      return false;
    c = *value;
    in = sub.getLhs();
  }
  int64_t flip = 0;
  if (auto xorOp = in.getDefiningOp<arith::XOrIOp>()) {
    std::optional<int64_t> value = getSplatConstant(xorOp.getRhs());
    if (!value || *value < 0 || *value >= 128)
      return false;
    flip = *value;
    in = xorOp.getLhs();
  }
  Operation *ext = in.getDefiningOp();
  if (!isa_and_nonnull<arith::ExtSIOp, arith::ExtUIOp>(ext))
    return false;
  bool isSigned = isa<arith::ExtSIOp>(ext);
  Value bytes = ext->getOperand(0);
  auto type = dyn_cast<VectorType>(bytes.getType());
  if (!type || type.getRank() != 1 || !type.getElementType().isInteger(8) ||
      type.getNumElements() % 4 != 0 || c < -128 || c > 128 ||
      (isa<arith::UIToFPOp>(convert) && (isSigned || c != 0)))
    return false;
  OpBuilder b(convert);
  Location loc = convert->getLoc();
  Value value = buildWordwise(b, loc, bytes, out, isSigned, flip);
  double base = (out.isF16() ? 1024.0 : 8388608.0) + (isSigned ? 128 : 0);
  Value converted = arith::SubFOp::create(
      b, loc, value, splat(b, loc, resultType, b.getFloatAttr(out, base + c)));
  convert->getResult(0).replaceAllUsesWith(converted);
  convert->erase();
  return true;
}

namespace {
/// Bit logic on widened bytes that ends in 16-bit lanes, computed two lanes
/// a 32-bit word (see packHalfLanes).
class HalfLanes {
public:
  /// The largest number of low bits `value` (an i32 vector of the DAG) may
  /// have set; nullopt where it is not an op of the DAG.
  std::optional<int64_t> bits(Value value) {
    auto it = widths.find(value);
    if (it != widths.end())
      return it->second;
    std::optional<int64_t> width = compute(value);
    if (width)
      widths[value] = *width;
    return width;
  }

  /// `value` as words of two lanes, built at `b`'s insertion point.
  Value build(OpBuilder &b, Value value) {
    if (Value built = words.lookup(value))
      return built;
    Location loc = value.getLoc();
    Operation *op = value.getDefiningOp();
    Value result;
    if (auto ext = dyn_cast<arith::ExtUIOp>(op)) {
      // Bytes b0 b1 b2 b3 of each word: (b0, b1) and (b2, b3) zero-extended
      // into the lanes of two words.
      Value bytes = ext.getIn();
      int64_t count = cast<VectorType>(bytes.getType()).getNumElements();
      Value packed = vector::BitCastOp::create(
          b, loc, VectorType::get({count / 4}, b.getI32Type()), bytes);
      result = permuteWords(b, loc, packed, i32Constant(b, loc, 0),
                            {0x4140, 0x4342});
    } else if (auto shl = dyn_cast<arith::ShLIOp>(op)) {
      int64_t amount = *getSplatConstant(shl.getRhs());
      Value in = build(b, shl.getLhs());
      result = arith::ShLIOp::create(b, loc, in,
                                     splatWords(b, loc, in, amount,
                                                /*both=*/false));
      // The low lane's bits shifted past 16 would land in the high lane.
      if (*bits(shl.getLhs()) + amount > 16)
        result = arith::AndIOp::create(
            b, loc, result,
            splatWords(b, loc, in,
                       int64_t(~(((uint32_t(1) << amount) - 1) << 16)),
                       /*both=*/false));
    } else {
      Value lhs = build(b, op->getOperand(0));
      std::optional<int64_t> c = getSplatConstant(op->getOperand(1));
      Value rhs = c ? splatWords(b, loc, lhs, *c & 0xFFFF, /*both=*/true)
                    : build(b, op->getOperand(1));
      OperationState state(loc, op->getName(), ValueRange{lhs, rhs},
                           TypeRange{lhs.getType()});
      result = b.create(state)->getResult(0);
    }
    words[value] = result;
    return result;
  }

private:
  /// `v` in every word (`both`: in both lanes of every word).
  static Value splatWords(OpBuilder &b, Location loc, Value like, int64_t v,
                          bool both) {
    uint32_t word = both ? uint32_t(v) | (uint32_t(v) << 16) : uint32_t(v);
    return splat(b, loc, like.getType(), b.getI32IntegerAttr(int32_t(word)));
  }
  std::optional<int64_t> compute(Value value) {
    auto type = dyn_cast<VectorType>(value.getType());
    Operation *op = value.getDefiningOp();
    if (!op || !type || type.getRank() != 1 ||
        !type.getElementType().isInteger(32) || type.getNumElements() % 4)
      return std::nullopt;
    if (auto ext = dyn_cast<arith::ExtUIOp>(op))
      return getElementTypeOrSelf(ext.getIn().getType()).isInteger(8)
                 ? std::optional<int64_t>(8)
                 : std::nullopt;
    if (auto shl = dyn_cast<arith::ShLIOp>(op)) {
      std::optional<int64_t> amount = getSplatConstant(shl.getRhs());
      std::optional<int64_t> in = bits(shl.getLhs());
      if (!amount || *amount < 0 || *amount >= 16 || !in)
        return std::nullopt;
      return std::min<int64_t>(16, *in + *amount);
    }
    if (!isa<arith::AndIOp, arith::OrIOp, arith::XOrIOp>(op))
      return std::nullopt;
    std::optional<int64_t> lhs = bits(op->getOperand(0));
    if (!lhs)
      return std::nullopt;
    std::optional<int64_t> c = getSplatConstant(op->getOperand(1));
    std::optional<int64_t> rhs =
        c ? std::optional<int64_t>(
                *c < 0 ? 16 : std::min<int64_t>(16, llvm::Log2_64(*c) + 1))
          : bits(op->getOperand(1));
    if (c && *c == 0)
      rhs = 0;
    if (!rhs)
      return std::nullopt;
    return isa<arith::AndIOp>(op) ? std::min(*lhs, *rhs) : std::max(*lhs, *rhs);
  }

  DenseMap<Value, int64_t> widths;
  DenseMap<Value, Value> words;
};
} // namespace

/// Bit logic on bytes widened to 32-bit lanes and truncated to 16 bits (an
/// fp4 e2m1 weight's bits placed in a half's: `((q & 8) << 12) |
/// ((q & 7) << 9)` of the nibbles unpackNibbles gives), computed two lanes
/// a word: one `prmt` spreads each pair of bytes into a word's 16-bit
/// halves, and each `and`, `or`, `xor` (its constant in both halves) and
/// `shl` (masked where the low half's bits could cross into the high one)
/// then does two elements' work; the truncation is a bitcast of the words.
/// Only the low 16 bits of each lane reach the truncation, and these ops'
/// low 16 bits depend only on their operands' low 16 bits.
static void packHalfLanes(Operation *root) {
  SmallVector<arith::TruncIOp> truncs;
  root->walk([&](arith::TruncIOp op) {
    auto type = dyn_cast<VectorType>(op.getType());
    if (type && type.getElementType().isInteger(16))
      truncs.push_back(op);
  });
  for (arith::TruncIOp op : truncs) {
    // Words built for one truncation are not reused by another, which they
    // need not dominate.
    HalfLanes lanes;
    Operation *def = op.getIn().getDefiningOp();
    // A lone widened byte is the ordinary conversion's to handle.
    if (isa_and_nonnull<arith::ExtUIOp>(def) || !lanes.bits(op.getIn()))
      continue;
    OpBuilder b(op);
    Value words = lanes.build(b, op.getIn());
    op.getResult().replaceAllUsesWith(
        vector::BitCastOp::create(b, op.getLoc(), op.getType(), words));
    op.erase();
  }
}

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
    if (convertBytesMinusConstant(op, in))
      continue;
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
    Value bits = arith::AddIOp::create(
        b, loc, in,
        splat(b, loc, in.getType(), b.getIntegerAttr(type, baseBits + bias)));
    Type word = b.getIntegerType(out.getIntOrFloatBitWidth());
    if (type != word)
      bits = arith::TruncIOp::create(b, loc, withElement(in.getType(), word),
                                     bits);
    Value value = arith::BitcastOp::create(b, loc, resultType, bits);
    Value converted = arith::SubFOp::create(
        b, loc, value,
        splat(b, loc, resultType, b.getFloatAttr(out, baseValue + bias)));
    op->getResult(0).replaceAllUsesWith(converted);
    op->erase();
  }
}

struct ConvertInt8ToFloatByBits
    : tile::impl::ConvertInt8ToFloatByBitsBase<ConvertInt8ToFloatByBits> {
  void runOnOperation() override {
    rewriteSignedNibbles(getOperation());
    unpackNibbles(getOperation());
    packHalfLanes(getOperation());
    convertNarrowRanges(getOperation());
    RewritePatternSet patterns(&getContext());
    patterns.add<Int8ToFloat<arith::SIToFPOp, true>,
                 Int8ToFloat<arith::UIToFPOp, false>>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
