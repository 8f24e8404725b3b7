//===- Arguments.h - tile-run's arguments and their data --------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// `--arg` specifications (`f16:128x64=randn(seed=1)`, `@a.npy`, `i32=7`),
// the host arrays they produce, and what tile-run does with results:
// summaries, comparisons against references, .npy output.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_TOOLS_TILE_RUN_ARGUMENTS_H
#define TILE_TOOLS_TILE_RUN_ARGUMENTS_H

#include "Npy.h"

#include "tile/JIT/ElementType.h"
#include "tile/JIT/Signature.h"

#include <string>

namespace mlir::tile::run {

using jit::ElementType;

/// NumPy's dtype ("f2", "i4", ...); bf16 has none.
std::optional<StringRef> getNpyDtype(ElementType type);
std::optional<ElementType> fromNpyDtype(StringRef dtype);

/// A dense row-major array on the host.
struct HostArray {
  ElementType type;
  SmallVector<int64_t> shape;
  std::string data;

  int64_t getNumElements() const;
  double get(int64_t i) const {
    return jit::loadElement(type, data.data() + i * jit::getByteWidth(type));
  }
  void set(int64_t i, double v) {
    jit::storeElement(type, data.data() + i * jit::getByteWidth(type), v);
  }
  /// `[i, j, ...]` of the i-th element.
  std::string formatIndex(int64_t i) const;
};

/// One parsed --arg.
struct ArgSpec {
  ElementType type;
  SmallVector<int64_t> shape;
  bool isScalar = false;
  /// TYPE[:SHAPE] was given (not the bare @file.npy form): a file's values
  /// are converted to `type`, and its shape must match.
  bool typed = false;
  /// randn(seed=S), rand(seed=S), zeros, ones, arange, full(V), @file.npy,
  /// or a scalar's value.
  std::string init;
};

using jit::formatShape;

/// Parses `TYPE[:SHAPE]=INIT` or `@file.npy`.
FailureOr<ArgSpec> parseArgSpec(StringRef text, std::string &error);

/// Builds the array an --arg describes (reading .npy files).
FailureOr<HostArray> materialize(const ArgSpec &spec, std::string &error);

/// Reads a .npy file as a host array of its own type.
FailureOr<HostArray> readArray(StringRef path, std::string &error);
/// Writes `array` as .npy (bf16 is written as f32).
LogicalResult writeArray(StringRef path, const HostArray &array,
                         std::string &error);

/// "min -1.25 max 3.5 mean 0.0625" (NaNs counted separately).
std::string summarize(const HostArray &array);

struct CheckResult {
  bool passed = true;
  int64_t mismatches = 0;
  int64_t worst = -1;
  double worstGot = 0, worstExpected = 0;
};
/// |got - expected| <= atol + rtol * |expected| elementwise (NaN matches
/// NaN). Shapes must be equal; element types may differ.
CheckResult compareArrays(const HostArray &got, const HostArray &expected,
                          double rtol, double atol);

} // namespace mlir::tile::run

#endif // TILE_TOOLS_TILE_RUN_ARGUMENTS_H
