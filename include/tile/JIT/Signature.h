//===- Signature.h - What a compiled function takes -------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The parameters of a function as a caller fills them in: memrefs (element
// type, rank, static sizes, strides and offset) and scalars, and where each
// goes in MLIR's packed calling convention.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_SIGNATURE_H
#define TILE_JIT_SIGNATURE_H

#include "tile/JIT/ElementType.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace mlir::tile::jit {

/// One parameter. Sizes, strides and the offset hold ShapedType::kDynamic
/// where the type leaves them to the caller.
struct Parameter {
  enum class Kind { MemRef, Scalar };
  Kind kind = Kind::Scalar;
  ElementType elementType = ElementType::F32;
  SmallVector<int64_t> shape;
  /// The memref's strides in elements: an explicit strided layout's, or,
  /// for the identity layout, row-major (ShapedType::kDynamic where they
  /// depend on dynamic sizes).
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  /// The identity layout: the strides must be row-major whatever the sizes.
  bool rowMajor = true;
  /// The function may write the memref (an op writes it, or an op whose
  /// effects are unknown takes it): false only when it certainly does not,
  /// so that a read-only array may be passed.
  bool written = true;
  /// The type as MLIR prints it, for messages: "memref<1024x512xf16>".
  std::string typeName;

  bool isMemRef() const { return kind == Kind::MemRef; }
  int64_t getRank() const { return shape.size(); }
  /// Entries of the packed argument array: a memref's descriptor takes
  /// 3 + 2 * rank (allocated and aligned pointers, offset, sizes, strides),
  /// a scalar one.
  unsigned getNumSlots() const { return isMemRef() ? 3 + 2 * getRank() : 1; }
};

/// A function's parameters.
struct Signature {
  std::string name;
  std::vector<Parameter> parameters;

  /// The signature of `function`. Fails, saying why, for results (compiled
  /// functions write into memref arguments) and for parameters a caller
  /// cannot fill in: memrefs outside the default memory space or with a
  /// non-strided layout, element types ElementType lacks, other types.
  static FailureOr<Signature> get(FunctionOpInterface function,
                                  std::string &error);

  /// "argument #I (TYPE): " for messages about argument `index`.
  std::string describeArgument(unsigned index) const;
};

/// `128x64`, or `scalar` for rank 0.
std::string formatShape(ArrayRef<int64_t> shape);

} // namespace mlir::tile::jit

#endif // TILE_JIT_SIGNATURE_H
