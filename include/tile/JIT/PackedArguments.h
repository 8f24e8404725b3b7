//===- PackedArguments.h - The arguments of one call ------------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// A compiled function is called through MLIR's packed interface: an array
// of pointers, one per LLVM-level argument (a memref contributes its
// allocated pointer, aligned pointer, offset, sizes and strides). A
// PackedArguments is laid out once for a signature; each call then only
// fills in pointers, sizes and strides, checked against the signature, and
// passes data(). Reuse one per kernel (and thread) across calls.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_PACKEDARGUMENTS_H
#define TILE_JIT_PACKEDARGUMENTS_H

#include "tile/JIT/Signature.h"

#include <string>
#include <vector>

namespace mlir::tile::jit {

class PackedArguments {
public:
  /// `signature` must outlive this object.
  explicit PackedArguments(const Signature &signature);
  PackedArguments(PackedArguments &&) = default;
  PackedArguments &operator=(PackedArguments &&) = default;
  PackedArguments(const PackedArguments &) = delete;
  PackedArguments &operator=(const PackedArguments &) = delete;

  const Signature &getSignature() const { return *signature; }

  /// Sets memref argument `index` to `data` (its first element) with
  /// `sizes` and `strides` in elements; empty strides mean row-major.
  /// Checks, in this order, that the parameter is a memref, the rank, the
  /// static sizes, the element type and the strides (a dimension of size 1
  /// may have any stride); on failure `error` says what, naming the
  /// argument ("argument #0 (memref<4x4xf32>): rank 1 does not match the
  /// parameter's rank 2").
  LogicalResult setMemRef(unsigned index, void *data, ElementType type,
                          ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides,
                          std::string *error);
  /// Sets scalar argument `index` from the getByteWidth(type) bytes at
  /// `value`; `type` must be the parameter's.
  LogicalResult setScalar(unsigned index, ElementType type, const void *value,
                          std::string *error);
  /// Sets scalar argument `index`, converting to the parameter's type: an
  /// integer for any scalar, a floating-point value for floating-point
  /// parameters only.
  LogicalResult setInteger(unsigned index, int64_t value, std::string *error);
  LogicalResult setFloat(unsigned index, double value, std::string *error);

  /// The array to pass to the packed function.
  void **data() { return pointers.data(); }

private:
  LogicalResult fail(unsigned index, const Twine &message,
                     std::string *error) const;
  LogicalResult mismatch(unsigned index, ElementType given,
                         ElementType expected, std::string *error) const;
  /// The type of scalar parameter `index`; fails if there is none.
  FailureOr<ElementType> checkScalar(unsigned index, std::string *error) const;
  /// The slot of scalar argument `index`, zeroed.
  void *clearScalar(unsigned index);

  const Signature *signature;
  /// One 8-byte slot per LLVM-level argument; pointers[i] = &slots[i].
  std::vector<int64_t> slots;
  std::vector<void *> pointers;
  /// The first slot of each parameter.
  std::vector<unsigned> firstSlots;
};

} // namespace mlir::tile::jit

#endif // TILE_JIT_PACKEDARGUMENTS_H
