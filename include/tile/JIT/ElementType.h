//===- ElementType.h - The element types a call passes ---------*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//
//
// The element types of the memrefs and scalars a compiled function takes
// (what a caller's tensors or NumPy arrays must hold), their storage, and
// conversions between their storage and doubles.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_JIT_ELEMENTTYPE_H
#define TILE_JIT_ELEMENTTYPE_H

#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <optional>

namespace mlir::tile::jit {

/// Integers are signless, as in MLIR; `Index` is 64-bit.
enum class ElementType : uint8_t {
  F16,
  BF16,
  F32,
  F64,
  F8E4M3FN,
  F8E5M2,
  I1,
  I8,
  I16,
  I32,
  I64,
  Index,
  // AMD CDNA3's fp8, after the others so that their numbers (and the C
  // API's) stay.
  F8E4M3FNUZ,
  F8E5M2FNUZ,
};

/// Bytes of one element in memory (i1: one byte).
unsigned getByteWidth(ElementType type);
bool isFloat(ElementType type);
/// MLIR's spelling: "f16", "bf16", "f8E4M3FN", "i32", "index".
StringRef stringifyElementType(ElementType type);
std::optional<ElementType> parseElementType(StringRef name);
/// The element type of an MLIR scalar type; none for types a call cannot
/// pass.
std::optional<ElementType> getElementType(Type type);

/// The value stored at `data` (rounding to nearest even on the way in).
double loadElement(ElementType type, const void *data);
void storeElement(ElementType type, void *data, double value);

} // namespace mlir::tile::jit

#endif // TILE_JIT_ELEMENTTYPE_H
