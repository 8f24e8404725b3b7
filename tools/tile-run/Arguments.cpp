//===- Arguments.cpp - tile-run's arguments and their data ----------------===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringSwitch.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>

#include <unistd.h>

using namespace mlir;
using namespace mlir::tile::run;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

std::optional<StringRef> mlir::tile::run::getNpyDtype(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return StringRef("f2");
  case ElementType::F32:
    return StringRef("f4");
  case ElementType::F64:
    return StringRef("f8");
  case ElementType::I1:
    return StringRef("b1");
  case ElementType::I8:
    return StringRef("i1");
  case ElementType::I16:
    return StringRef("i2");
  case ElementType::I32:
    return StringRef("i4");
  case ElementType::I64:
  case ElementType::Index:
    return StringRef("i8");
  default:
    return std::nullopt;
  }
}

std::optional<ElementType> mlir::tile::run::fromNpyDtype(StringRef dtype) {
  return llvm::StringSwitch<std::optional<ElementType>>(dtype)
      .Case("f2", ElementType::F16)
      .Case("f4", ElementType::F32)
      .Case("f8", ElementType::F64)
      .Case("b1", ElementType::I1)
      .Cases({"i1", "u1"}, ElementType::I8)
      .Cases({"i2", "u2"}, ElementType::I16)
      .Cases({"i4", "u4"}, ElementType::I32)
      .Cases({"i8", "u8"}, ElementType::I64)
      .Default(std::nullopt);
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
  std::optional<ElementType> type = jit::parseElementType(typeName);
  if (!type) {
    error = "unknown element type '" + typeName.str() +
            "' (expected f16, bf16, f32, f64, f8E4M3FN, f8E5M2, "
            "f8E4M3FNUZ, f8E5M2FNUZ, i1, i8, i16, i32, i64 or index)";
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
  std::optional<ElementType> type = fromNpyDtype(npy->dtype);
  if (!type) {
    error = (path + ": unsupported dtype '" + npy->dtype + "'").str();
    return failure();
  }
  HostArray array{*type, npy->shape, std::move(npy->data)};
  return array;
}

/// Makes `array.data` hold its shape's elements, zeroed: fails with a
/// message, before allocating, when the size overflows or passes the
/// machine's memory, and when the allocation fails (never an abort).
static LogicalResult allocateHostArray(HostArray &array, std::string &error) {
  int64_t bytes = tile::jit::getByteWidth(array.type);
  for (int64_t size : array.shape) {
    if (llvm::MulOverflow(bytes, size, bytes)) {
      error = "shape " + formatShape(array.shape) + " is too large: its " +
              "size in bytes overflows";
      return failure();
    }
  }
  int64_t memory = sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGE_SIZE);
  if (memory > 0 && bytes > memory) {
    error = "shape " + formatShape(array.shape) + " needs " +
            std::to_string(bytes) + " bytes, more than this machine's " +
            std::to_string(memory);
    return failure();
  }
  // std::string reports failure by aborting: ask malloc first.
  void *probe = std::malloc(std::max<int64_t>(bytes, 1));
  if (!probe) {
    error = "cannot allocate " + std::to_string(bytes) + " bytes for shape " +
            formatShape(array.shape);
    return failure();
  }
  std::free(probe);
  array.data.assign(bytes, '\0');
  return success();
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
    if (failed(allocateHostArray(converted, error)))
      return failure();
    for (int64_t i = 0, e = file->getNumElements(); i < e; ++i)
      converted.set(i, file->get(i));
    return converted;
  }
  HostArray array{spec.type, spec.shape, {}};
  if (failed(allocateHostArray(array, error)))
    return failure();
  int64_t n = array.getNumElements();
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
      array.set(i, jit::isFloat(spec.type) ? normal(engine)
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
  if (std::optional<StringRef> dtype = getNpyDtype(array.type)) {
    npy.dtype = dtype->str();
    npy.data = array.data;
  } else {
    // NumPy has no bf16: write f32.
    npy.dtype = "f4";
    npy.data.resize(array.getNumElements() * 4);
    for (int64_t i = 0, e = array.getNumElements(); i < e; ++i)
      jit::storeElement(ElementType::F32, npy.data.data() + i * 4,
                        array.get(i));
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
