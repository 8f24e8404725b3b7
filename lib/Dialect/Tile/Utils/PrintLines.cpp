//===- PrintLines.cpp - The lines tile.print writes -----------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/Dialect/Tile/Utils/PrintLines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::tile;

std::string mlir::tile::getPrintTypeName(Type type, bool isUnsigned,
                                         bool inBuffer) {
  if (type.isIndex())
    return "index";
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return "bool";
    case 8:
      return isUnsigned ? "unsigned char" : "signed char";
    case 16:
      if (isUnsigned)
        return inBuffer ? "uint16_t" : "unsigned short";
      return "short";
    case 32:
      return isUnsigned ? "uint" : "int";
    case 64:
      return isUnsigned ? "ulong" : "long";
    default:
      return (isUnsigned ? "ui" : "i") + std::to_string(integer.getWidth());
    }
  }
  if (type.isF16())
    return "half_t";
  if (type.isBF16())
    return "bfloat16_t";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  if (isa<Float8E4M3FNType, Float8E4M3FNUZType>(type))
    return "fp8_e4_t";
  if (isa<Float8E5M2Type, Float8E5M2FNUZType>(type))
    return "fp8_e5_t";
  std::string name;
  llvm::raw_string_ostream os(name);
  type.print(os);
  return name;
}

/// `text` in a C format string: `%` doubled.
static std::string escapeFormat(StringRef text) {
  std::string result;
  for (char c : text) {
    if (c == '%')
      result += '%';
    result += c;
  }
  return result;
}

namespace {
/// A printed value after C's default argument promotions, and its
/// conversion in a format.
struct PromotedValue {
  Value value;
  StringRef conversion;
};
} // namespace

/// `value` as printf reads it: integers narrower than 32 bits extended to
/// i32, wider ones and index to i64, floats to f64.
static PromotedValue promote(OpBuilder &b, Location loc, Value value,
                             bool isUnsigned) {
  Type type = value.getType();
  if (type.isIndex())
    return {arith::IndexCastOp::create(b, loc, b.getI64Type(), value), "%ld"};
  if (auto integer = dyn_cast<IntegerType>(type)) {
    Type wide = integer.getWidth() <= 32 ? b.getI32Type() : b.getI64Type();
    if (type != wide)
      value = isUnsigned ? Value(arith::ExtUIOp::create(b, loc, wide, value))
                         : Value(arith::ExtSIOp::create(b, loc, wide, value));
    if (wide.isInteger(32))
      return {value, isUnsigned ? "%u" : "%d"};
    return {value, isUnsigned ? "%lu" : "%ld"};
  }
  auto floatType = cast<FloatType>(type);
  if (floatType.getWidth() < 64)
    value = arith::ExtFOp::create(b, loc, b.getF64Type(), value);
  else if (!floatType.isF64())
    value = arith::TruncFOp::create(b, loc, b.getF64Type(), value);
  return {value, floatType.isF64() ? "%lf" : "%f"};
}

void mlir::tile::buildPrintLine(OpBuilder &b, Location loc, PrintOp op,
                                const PrintOrigin &origin, Value flatIndex,
                                Value element, PrintfBuilder printf) {
  auto i32 = [&](Value index) -> Value {
    return arith::IndexCastOp::create(b, loc, b.getI32Type(), index);
  };
  std::string format = "msg='" + escapeFormat(op.getMessage()) +
                       "' BlockIdx=(%d, %d, %d), ThreadIdx=(%d, 0, 0)";
  SmallVector<Value> args;
  for (Value id : origin.blockIds)
    args.push_back(i32(id));
  args.push_back(i32(origin.thread));
  if (!element) {
    printf(b, loc, format + "\n", args);
    return;
  }
  bool isUnsigned = op.getIsUnsigned();
  if (flatIndex) {
    format += ": buffer=" + escapeFormat(op.getBufferName()) + ", index=%d,";
    args.push_back(i32(flatIndex));
  } else {
    format += ":";
  }
  Type type = element.getType();
  format += " dtype=" +
            escapeFormat(getPrintTypeName(type, isUnsigned, !!flatIndex)) +
            " value=";
  if (type.isInteger(1)) {
    // TileLang prints booleans as words.
    auto branch = scf::IfOp::create(b, loc, element, /*withElseRegion=*/true);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(branch.thenBlock());
    printf(b, loc, format + "true\n", args);
    b.setInsertionPointToStart(branch.elseBlock());
    printf(b, loc, format + "false\n", args);
    return;
  }
  PromotedValue promoted = promote(b, loc, element, isUnsigned);
  args.push_back(promoted.value);
  printf(b, loc, format + promoted.conversion.str() + "\n", args);
}

void mlir::tile::buildRowMajorLoop(
    OpBuilder &b, Location loc, Value buffer,
    function_ref<void(OpBuilder &, Location, Value, ValueRange)> body) {
  SmallVector<Value> sizes;
  for (auto [d, size] :
       llvm::enumerate(cast<ShapedType>(buffer.getType()).getShape()))
    sizes.push_back(ShapedType::isDynamic(size)
                        ? Value(memref::DimOp::create(b, loc, buffer, d))
                        : Value(arith::ConstantIndexOp::create(b, loc, size)));
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (Value size : sizes)
    count = arith::MulIOp::create(b, loc, count, size);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(
      b, loc, zero, count, one, ValueRange(),
      [&](OpBuilder &nested, Location l, Value flat, ValueRange) {
        SmallVector<Value> index(sizes.size());
        Value rest = flat;
        for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
          if (d == 0) {
            index[d] = rest;
            break;
          }
          index[d] = arith::RemUIOp::create(nested, l, rest, sizes[d]);
          rest = arith::DivUIOp::create(nested, l, rest, sizes[d]);
        }
        body(nested, l, flat, index);
        scf::YieldOp::create(nested, l);
      });
}
