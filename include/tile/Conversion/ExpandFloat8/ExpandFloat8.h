//===- ExpandFloat8.h - f8 conversions as integer arithmetic ----*- C++ -*-===//
//
// Part of the tile project.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_CONVERSION_EXPANDFLOAT8_EXPANDFLOAT8_H
#define TILE_CONVERSION_EXPANDFLOAT8_EXPANDFLOAT8_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::tile {

/// Patterns rewriting `arith.extf` from and `arith.truncf` to f8E4M3FN,
/// f8E5M2, f8E4M3FNUZ and f8E5M2FNUZ (scalars and vectors), and
/// `arith.constant`s of those types, into integer arithmetic on their bits,
/// which every LLVM backend lowers. The conversions are exact where they
/// can be and round to nearest even otherwise; as APFloat converts (and so
/// as arith's folders do), a value too large for the type becomes infinity
/// in f8E5M2 and NaN in the others, which have no infinity; the FNUZ types
/// have one NaN (0x80) and no negative zero (-0.0 becomes +0).
void populateExpandFloat8Patterns(RewritePatternSet &patterns);

} // namespace mlir::tile

#endif // TILE_CONVERSION_EXPANDFLOAT8_EXPANDFLOAT8_H
