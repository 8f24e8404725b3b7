//===- ElementType.cpp - The element types a call passes ------------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "tile/JIT/ElementType.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::tile::jit;

//===----------------------------------------------------------------------===//
// Half-precision conversions (round to nearest even)
//===----------------------------------------------------------------------===//

static uint32_t bitsOf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}

static float floatOf(uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

static uint16_t floatToHalf(float value) {
  uint32_t x = bitsOf(value);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t mantissa = x & 0x7fffff;
  int32_t exponent = int32_t((x >> 23) & 0xff) - 127 + 15;
  if (((x >> 23) & 0xff) == 0xff)
    return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  if (exponent >= 0x1f)
    return sign | 0x7c00;
  if (exponent <= 0) {
    if (exponent < -10)
      return sign;
    mantissa |= 0x800000;
    int shift = 14 - exponent;
    uint32_t half = mantissa >> shift;
    uint32_t rest = mantissa & ((1u << shift) - 1), middle = 1u << (shift - 1);
    if (rest > middle || (rest == middle && (half & 1)))
      ++half;
    return sign | half;
  }
  uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13);
  uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    ++half; // A carry into the exponent rounds up correctly, to inf too.
  return sign | half;
}

static float halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  if (exponent == 0) {
    float f = std::ldexp(float(mantissa), -24);
    return sign ? -f : f;
  }
  if (exponent == 0x1f)
    return floatOf(sign | 0x7f800000 | (mantissa << 13));
  return floatOf(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

static uint16_t floatToBFloat(float value) {
  uint32_t x = bitsOf(value);
  if (std::isnan(value))
    return uint16_t((x >> 16) | 0x40);
  return uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static float bfloatToFloat(uint16_t b) { return floatOf(uint32_t(b) << 16); }

/// 8-bit floats go through APFloat: rare enough not to need a fast path.
static const llvm::fltSemantics &getFloat8Semantics(ElementType type) {
  switch (type) {
  case ElementType::F8E4M3FN:
    return llvm::APFloat::Float8E4M3FN();
  case ElementType::F8E4M3FNUZ:
    return llvm::APFloat::Float8E4M3FNUZ();
  case ElementType::F8E5M2FNUZ:
    return llvm::APFloat::Float8E5M2FNUZ();
  default:
    return llvm::APFloat::Float8E5M2();
  }
}

static uint8_t doubleToFloat8(ElementType type, double value) {
  llvm::APFloat converted(value);
  bool losesInfo;
  converted.convert(getFloat8Semantics(type),
                    llvm::APFloat::rmNearestTiesToEven, &losesInfo);
  return uint8_t(converted.bitcastToAPInt().getZExtValue());
}

static double float8ToDouble(ElementType type, uint8_t bits) {
  llvm::APFloat value(getFloat8Semantics(type), llvm::APInt(8, bits));
  return value.convertToDouble();
}

//===----------------------------------------------------------------------===//
// ElementType
//===----------------------------------------------------------------------===//

namespace {
struct Description {
  ElementType type;
  const char *name;
  unsigned bytes;
};
constexpr Description descriptions[] = {
    {ElementType::F16, "f16", 2},
    {ElementType::BF16, "bf16", 2},
    {ElementType::F32, "f32", 4},
    {ElementType::F64, "f64", 8},
    {ElementType::F8E4M3FN, "f8E4M3FN", 1},
    {ElementType::F8E5M2, "f8E5M2", 1},
    {ElementType::I1, "i1", 1},
    {ElementType::I8, "i8", 1},
    {ElementType::I16, "i16", 2},
    {ElementType::I32, "i32", 4},
    {ElementType::I64, "i64", 8},
    {ElementType::Index, "index", 8},
    {ElementType::F8E4M3FNUZ, "f8E4M3FNUZ", 1},
    {ElementType::F8E5M2FNUZ, "f8E5M2FNUZ", 1},
};
const Description &describe(ElementType type) {
  return descriptions[static_cast<unsigned>(type)];
}
} // namespace

unsigned mlir::tile::jit::getByteWidth(ElementType type) {
  return describe(type).bytes;
}

bool mlir::tile::jit::isFloat(ElementType type) {
  return type <= ElementType::F8E5M2 || type == ElementType::F8E4M3FNUZ ||
         type == ElementType::F8E5M2FNUZ;
}

StringRef mlir::tile::jit::stringifyElementType(ElementType type) {
  return describe(type).name;
}

std::optional<ElementType> mlir::tile::jit::parseElementType(StringRef name) {
  for (const Description &description : descriptions)
    if (name == description.name)
      return description.type;
  return std::nullopt;
}

std::optional<ElementType> mlir::tile::jit::getElementType(Type type) {
  if (type.isF16())
    return ElementType::F16;
  if (type.isBF16())
    return ElementType::BF16;
  if (type.isF32())
    return ElementType::F32;
  if (type.isF64())
    return ElementType::F64;
  if (isa<Float8E4M3FNType>(type))
    return ElementType::F8E4M3FN;
  if (isa<Float8E5M2Type>(type))
    return ElementType::F8E5M2;
  if (isa<Float8E4M3FNUZType>(type))
    return ElementType::F8E4M3FNUZ;
  if (isa<Float8E5M2FNUZType>(type))
    return ElementType::F8E5M2FNUZ;
  if (type.isIndex())
    return ElementType::Index;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return ElementType::I1;
    case 8:
      return ElementType::I8;
    case 16:
      return ElementType::I16;
    case 32:
      return ElementType::I32;
    case 64:
      return ElementType::I64;
    }
  }
  return std::nullopt;
}

double mlir::tile::jit::loadElement(ElementType type, const void *data) {
  auto read = [&](auto value) {
    std::memcpy(&value, data, sizeof(value));
    return value;
  };
  switch (type) {
  case ElementType::F16:
    return halfToFloat(read(uint16_t()));
  case ElementType::BF16:
    return bfloatToFloat(read(uint16_t()));
  case ElementType::F32:
    return read(float());
  case ElementType::F64:
    return read(double());
  case ElementType::F8E4M3FN:
  case ElementType::F8E5M2:
  case ElementType::F8E4M3FNUZ:
  case ElementType::F8E5M2FNUZ:
    return float8ToDouble(type, read(uint8_t()));
  case ElementType::I1:
    return read(uint8_t()) != 0;
  case ElementType::I8:
    return read(int8_t());
  case ElementType::I16:
    return read(int16_t());
  case ElementType::I32:
    return read(int32_t());
  case ElementType::I64:
  case ElementType::Index:
    return double(read(int64_t()));
  }
  return 0;
}

void mlir::tile::jit::storeElement(ElementType type, void *data, double value) {
  auto write = [&](auto v) { std::memcpy(data, &v, sizeof(v)); };
  switch (type) {
  case ElementType::F16:
    return write(floatToHalf(float(value)));
  case ElementType::BF16:
    return write(floatToBFloat(float(value)));
  case ElementType::F32:
    return write(float(value));
  case ElementType::F64:
    return write(value);
  case ElementType::F8E4M3FN:
  case ElementType::F8E5M2:
  case ElementType::F8E4M3FNUZ:
  case ElementType::F8E5M2FNUZ:
    return write(doubleToFloat8(type, value));
  case ElementType::I1:
    return write(uint8_t(value != 0));
  case ElementType::I8:
    return write(int8_t(value));
  case ElementType::I16:
    return write(int16_t(value));
  case ElementType::I32:
    return write(int32_t(value));
  case ElementType::I64:
  case ElementType::Index:
    return write(int64_t(value));
  }
}
