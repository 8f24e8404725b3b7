//===- Arguments.cpp - tile-run's arguments and their data ----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::tile::run;

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

//===----------------------------------------------------------------------===//
// ElementType
//===----------------------------------------------------------------------===//

int64_t ElementType::getBytes() const {
  switch (kind) {
  case F16:
  case BF16:
  case I16:
    return 2;
  case F32:
  case I32:
    return 4;
  case F64:
  case I64:
  case Index:
    return 8;
  case I1:
  case I8:
    return 1;
  }
  return 0;
}

StringRef ElementType::getName() const {
  static const char *names[] = {"f16", "bf16", "f32", "f64", "i1",
                                "i8",  "i16",  "i32", "i64", "index"};
  return names[kind];
}

std::optional<StringRef> ElementType::getNpyDtype() const {
  static const char *dtypes[] = {"f2", nullptr, "f4", "f8", "b1",
                                 "i1", "i2",    "i4", "i8", "i8"};
  if (!dtypes[kind])
    return std::nullopt;
  return StringRef(dtypes[kind]);
}

std::optional<ElementType> ElementType::parse(StringRef name) {
  for (unsigned kind = F16; kind <= Index; ++kind)
    if (ElementType{static_cast<Kind>(kind)}.getName() == name)
      return ElementType{static_cast<Kind>(kind)};
  return std::nullopt;
}

std::optional<ElementType> ElementType::fromNpy(StringRef dtype) {
  std::optional<Kind> kind = llvm::StringSwitch<std::optional<Kind>>(dtype)
                                 .Case("f2", F16)
                                 .Case("f4", F32)
                                 .Case("f8", F64)
                                 .Case("b1", I1)
                                 .Cases({"i1", "u1"}, I8)
                                 .Cases({"i2", "u2"}, I16)
                                 .Cases({"i4", "u4"}, I32)
                                 .Cases({"i8", "u8"}, I64)
                                 .Default(std::nullopt);
  if (!kind)
    return std::nullopt;
  return ElementType{*kind};
}

std::optional<ElementType> ElementType::fromMLIR(Type type) {
  if (type.isF16())
    return ElementType{F16};
  if (type.isBF16())
    return ElementType{BF16};
  if (type.isF32())
    return ElementType{F32};
  if (type.isF64())
    return ElementType{F64};
  if (type.isIndex())
    return ElementType{Index};
  if (auto integer = dyn_cast<IntegerType>(type)) {
    switch (integer.getWidth()) {
    case 1:
      return ElementType{I1};
    case 8:
      return ElementType{I8};
    case 16:
      return ElementType{I16};
    case 32:
      return ElementType{I32};
    case 64:
      return ElementType{I64};
    }
  }
  return std::nullopt;
}

double ElementType::load(const char *p) const {
  auto read = [&](auto value) {
    std::memcpy(&value, p, sizeof(value));
    return value;
  };
  switch (kind) {
  case F16:
    return halfToFloat(read(uint16_t()));
  case BF16:
    return bfloatToFloat(read(uint16_t()));
  case F32:
    return read(float());
  case F64:
    return read(double());
  case I1:
    return read(uint8_t()) != 0;
  case I8:
    return read(int8_t());
  case I16:
    return read(int16_t());
  case I32:
    return read(int32_t());
  case I64:
  case Index:
    return double(read(int64_t()));
  }
  return 0;
}

void ElementType::store(char *p, double value) const {
  auto write = [&](auto v) { std::memcpy(p, &v, sizeof(v)); };
  switch (kind) {
  case F16:
    return write(floatToHalf(float(value)));
  case BF16:
    return write(floatToBFloat(float(value)));
  case F32:
    return write(float(value));
  case F64:
    return write(value);
  case I1:
    return write(uint8_t(value != 0));
  case I8:
    return write(int8_t(value));
  case I16:
    return write(int16_t(value));
  case I32:
    return write(int32_t(value));
  case I64:
  case Index:
    return write(int64_t(value));
  }
}

//===----------------------------------------------------------------------===//
// Arrays
//===----------------------------------------------------------------------===//

int64_t HostArray::getNumElements() const {
  int64_t n = 1;
  for (int64_t s : shape)
    n *= s;
  return n;
}

std::string HostArray::formatIndex(int64_t i) const {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[d] = i % shape[d];
    i /= shape[d];
  }
  std::string s = "[";
  for (auto [n, v] : llvm::enumerate(index))
    s += (n ? ", " : "") + std::to_string(v);
  return s + "]";
}

std::string mlir::tile::run::formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? "x" : "") + std::to_string(d);
  return s;
}

FailureOr<ArgSpec> mlir::tile::run::parseArgSpec(StringRef text,
                                                 std::string &error) {
  ArgSpec spec;
  if (text.starts_with("@")) {
    spec.init = text.str();
    // Type and shape come from the file, filled in by materialize().
    return spec;
  }
  auto [head, init] = text.split('=');
  if (init.empty() || head.empty()) {
    error = "expected TYPE[:SHAPE]=INIT or @FILE.npy, got '" + text.str() +
            "'";
    return failure();
  }
  auto [typeName, shapeText] = head.split(':');
  std::optional<ElementType> type = ElementType::parse(typeName);
  if (!type) {
    error = "unknown element type '" + typeName.str() +
            "' (expected f16, bf16, f32, f64, i1, i8, i16, i32, i64 or index)";
    return failure();
  }
  spec.type = *type;
  spec.typed = true;
  spec.init = init.str();
  spec.isScalar = shapeText.empty();
  if (!spec.isScalar) {
    SmallVector<StringRef> dims;
    shapeText.split(dims, 'x');
    for (StringRef dim : dims) {
      int64_t size;
      if (dim.getAsInteger(10, size) || size < 0) {
        error = "bad shape '" + shapeText.str() + "' (expected e.g. 128x64)";
        return failure();
      }
      spec.shape.push_back(size);
    }
    if (int64_t(spec.shape.size()) > 8 ||
        llvm::any_of(spec.shape, [](int64_t s) { return s > (1ll << 31); })) {
      error = "shape '" + shapeText.str() + "' is too large";
      return failure();
    }
  }
  return spec;
}

/// Parses `name(seed=N)` / `name` and returns the seed (default 0).
static std::optional<uint64_t> parseSeeded(StringRef init, StringRef name) {
  if (init == name)
    return 0;
  if (!init.consume_front(name) || !init.consume_front("(") ||
      !init.consume_back(")"))
    return std::nullopt;
  init.consume_front("seed=");
  uint64_t seed;
  if (init.trim().getAsInteger(10, seed))
    return std::nullopt;
  return seed;
}

FailureOr<HostArray> mlir::tile::run::readArray(StringRef path,
                                                std::string &error) {
  FailureOr<NpyArray> npy = readNpy(path, error);
  if (failed(npy))
    return failure();
  std::optional<ElementType> type = ElementType::fromNpy(npy->dtype);
  if (!type) {
    error = (path + ": unsupported dtype '" + npy->dtype + "'").str();
    return failure();
  }
  HostArray array{*type, npy->shape, std::move(npy->data)};
  return array;
}

FailureOr<HostArray> mlir::tile::run::materialize(const ArgSpec &spec,
                                                  std::string &error) {
  StringRef init = spec.init;
  if (init.starts_with("@")) {
    FailureOr<HostArray> file = readArray(init.drop_front(), error);
    if (failed(file) || !spec.typed)
      return file;
    if (!spec.isScalar && file->shape != spec.shape) {
      error = init.drop_front().str() + ": shape " +
              formatShape(file->shape) + " does not match the given " +
              formatShape(spec.shape);
      return failure();
    }
    if (spec.isScalar && file->getNumElements() != 1) {
      error = init.drop_front().str() + ": expected one element for a " +
              "scalar, got shape " + formatShape(file->shape);
      return failure();
    }
    if (file->type == spec.type)
      return file;
    // Convert (e.g. f32 files for bf16 parameters: NumPy has no bf16).
    HostArray converted{spec.type, file->shape, {}};
    converted.data.assign(file->getNumElements() * spec.type.getBytes(), '\0');
    for (int64_t i = 0, e = file->getNumElements(); i < e; ++i)
      converted.set(i, file->get(i));
    return converted;
  }
  HostArray array{spec.type, spec.shape, {}};
  int64_t n = array.getNumElements();
  array.data.assign(n * spec.type.getBytes(), '\0');
  if (spec.isScalar) {
    double value;
    if (init.getAsDouble(value)) {
      error = "bad scalar value '" + init.str() + "'";
      return failure();
    }
    array.set(0, value);
    return array;
  }
  if (init == "zeros")
    return array;
  if (init == "ones") {
    for (int64_t i = 0; i < n; ++i)
      array.set(i, 1);
    return array;
  }
  if (init == "arange") {
    for (int64_t i = 0; i < n; ++i)
      array.set(i, double(i));
    return array;
  }
  if (init.starts_with("full(") && init.ends_with(")")) {
    double value;
    if (init.drop_front(5).drop_back().trim().getAsDouble(value)) {
      error = "bad value in '" + init.str() + "'";
      return failure();
    }
    for (int64_t i = 0; i < n; ++i)
      array.set(i, value);
    return array;
  }
  if (std::optional<uint64_t> seed = parseSeeded(init, "randn")) {
    std::mt19937_64 engine(*seed);
    std::normal_distribution<double> normal;
    for (int64_t i = 0; i < n; ++i)
      array.set(i, spec.type.isFloat() ? normal(engine)
                                       : std::round(normal(engine) * 4));
    return array;
  }
  if (std::optional<uint64_t> seed = parseSeeded(init, "rand")) {
    std::mt19937_64 engine(*seed);
    std::uniform_real_distribution<double> uniform;
    for (int64_t i = 0; i < n; ++i)
      array.set(i, uniform(engine));
    return array;
  }
  error = "unknown initializer '" + init.str() +
          "' (expected randn(seed=N), rand(seed=N), zeros, ones, arange, "
          "full(V) or @file.npy)";
  return failure();
}

LogicalResult mlir::tile::run::writeArray(StringRef path,
                                          const HostArray &array,
                                          std::string &error) {
  NpyArray npy;
  npy.shape = array.shape;
  if (std::optional<StringRef> dtype = array.type.getNpyDtype()) {
    npy.dtype = dtype->str();
    npy.data = array.data;
  } else {
    // NumPy has no bf16: write f32.
    ElementType f32{ElementType::F32};
    npy.dtype = "f4";
    npy.data.resize(array.getNumElements() * 4);
    for (int64_t i = 0, e = array.getNumElements(); i < e; ++i)
      f32.store(npy.data.data() + i * 4, array.get(i));
  }
  return writeNpy(path, npy, error);
}

std::string mlir::tile::run::summarize(const HostArray &array) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  int64_t nans = 0, n = array.getNumElements();
  for (int64_t i = 0; i < n; ++i) {
    double v = array.get(i);
    if (std::isnan(v)) {
      ++nans;
      continue;
    }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  if (n == nans)
    os << "no numbers";
  else
    os << "min " << lo << " max " << hi << " mean " << sum / (n - nans);
  if (nans)
    os << " (" << nans << " NaN)";
  return s;
}

CheckResult mlir::tile::run::compareArrays(const HostArray &got,
                                           const HostArray &expected,
                                           double rtol, double atol) {
  CheckResult result;
  double worstExcess = -1;
  for (int64_t i = 0, e = got.getNumElements(); i < e; ++i) {
    double g = got.get(i), x = expected.get(i);
    bool ok;
    double excess;
    if (std::isnan(g) || std::isnan(x)) {
      ok = std::isnan(g) && std::isnan(x);
      excess = ok ? 0 : std::numeric_limits<double>::infinity();
    } else {
      double tolerance = atol + rtol * std::fabs(x);
      excess = std::fabs(g - x) - tolerance;
      ok = excess <= 0 || g == x;
    }
    if (!ok)
      ++result.mismatches;
    if (excess > worstExcess) {
      worstExcess = excess;
      result.worst = i;
      result.worstGot = g;
      result.worstExpected = x;
    }
  }
  result.passed = result.mismatches == 0;
  return result;
}
